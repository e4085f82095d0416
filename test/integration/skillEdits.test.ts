/**
 * Issue 18, item 8: editing one skill among many re-reads only that one. 200 skills with ~8 KB of
 * nested frontmatter each, one of them saved every 300 ms: each reload parses only the edited file,
 * the catalog follows the edits, and GET /tools stays responsive meanwhile. Hostile frontmatter
 * (1000 levels deep, an alias bomb) becomes a diagnostic at once without holding up the others.
 */
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { skillParses } from '../../electron/providers/skills';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { aliasBomb, deepSkill, nestedSkill, skill, skillsDir, type SkillsDir } from '../support/skills';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FILES = 200;
const TOUCHES = 10;
const folderOf = (index: number) => `s-${String(index).padStart(3, '0')}`;

let gw: TestGateway;
let skills: SkillsDir;
const get = async (path: string) => (await (await gw.request(path)).json()) as Json;
const skillContracts = async () => ((await get('/catalog')).capabilities as Json[]).map((c) => c.contract as Json).filter((c) => c.kind === 'skill');
const descriptionOf = async (name: string) => (await skillContracts()).find((c) => c.name === name)?.description as string | undefined;
const diagnostics = async () => Object.fromEntries(((await get('/diagnostics')).diagnostics as Json[]).map((d) => [d.path, d.reason as string]));
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

beforeAll(async () => {
  skills = skillsDir();
  // Written a minute ago: nothing about the files' age should make the provider read them again.
  const past = new Date(Date.now() - 60_000);
  for (let index = 0; index < FILES; index += 1) {
    const folder = folderOf(index);
    utimesSync(skills.write(folder, nestedSkill(folder, `Skill ${index}`)), past, past);
  }
  gw = await startTestGateway({ skillsDirs: [skills.dir] });
  await gw.host.catalog.whenLoaded();
}, 60_000);
afterAll(async () => {
  skillParses.listener = null;
  await gw?.stop();
  skills?.cleanup();
});
afterEach(() => {
  skillParses.listener = null;
});

describe('editing one skill among 200', () => {
  it('re-parses only the edited file, follows every edit, and GET /tools stays responsive', async () => {
    const touched = folderOf(42);
    const touchedPath = join(skills.dir, touched, 'SKILL.md');
    const parsed: string[] = [];
    skillParses.listener = (path) => parsed.push(path);

    let touching = true;
    const latencies: number[] = [];
    const probe = (async () => {
      while (touching) {
        const sent = performance.now();
        expect((await gw.request('/tools')).status).toBe(200);
        latencies.push(performance.now() - sent);
        await sleep(20);
      }
    })();
    for (let touch = 1; touch <= TOUCHES; touch += 1) {
      skills.write(touched, nestedSkill(touched, `Edit ${touch}`));
      await sleep(300);
    }
    await expect.poll(() => descriptionOf(touched), { timeout: 5_000 }).toBe(`Edit ${TOUCHES}`);
    touching = false;
    await probe;

    const p50 = percentile(latencies, 50);
    console.log(
      `GET /tools while one of ${FILES} skills was saved every 300 ms: p50 ${p50.toFixed(1)} ms, p90 ${percentile(latencies, 90).toFixed(1)} ms, ` +
        `max ${Math.max(...latencies).toFixed(1)} ms over ${latencies.length} requests; ${parsed.length} files parsed (${new Set(parsed).size} distinct)`,
    );
    // Only the edited file was parsed again, at most once per save (saves may coalesce).
    expect(new Set(parsed)).toEqual(new Set([touchedPath]));
    expect(parsed.length).toBeGreaterThanOrEqual(1);
    expect(parsed.length).toBeLessThanOrEqual(TOUCHES);
    expect((await skillContracts()).length).toBe(FILES);
    // Loose: re-parsing all 200 files on every save held requests for 0.6 s and more.
    expect(p50).toBeLessThan(500);
  }, 30_000);

  it('turns frontmatter 1000 levels deep and an alias bomb into diagnostics at once, while another edit goes through', async () => {
    const parsed: string[] = [];
    skillParses.listener = (path) => parsed.push(path);
    const started = performance.now();
    skills.write('deep-flow', deepSkill('deep-flow', 1000, 'flow-seq'));
    skills.write('deep-map', deepSkill('deep-map', 1000, 'flow-map'));
    skills.write('deep-block', deepSkill('deep-block', 1000, 'block-seq'));
    skills.write('bomb', aliasBomb('bomb'));
    skills.write(folderOf(7), skill(`name: ${folderOf(7)}\ndescription: Edited beside the hostile files`));

    const path = (folder: string) => join(skills.dir, folder, 'SKILL.md');
    await expect.poll(() => descriptionOf(folderOf(7)), { timeout: 5_000 }).toBe('Edited beside the hostile files');
    await expect.poll(async () => Object.keys(await diagnostics()).length, { timeout: 5_000 }).toBe(4);
    const elapsed = performance.now() - started;
    const reasons = await diagnostics();
    for (const folder of ['deep-flow', 'deep-map', 'deep-block']) expect(reasons[path(folder)]).toMatch(/deeper than the 32-level limit/);
    expect(reasons[path('bomb')]).toMatch(/Excessive alias count/);
    console.log(`hostile frontmatter became diagnostics ${elapsed.toFixed(0)} ms after it was written`);
    expect(elapsed).toBeLessThan(3_000);
    // The new files and the edited one; none of the 199 others.
    expect(new Set(parsed)).toEqual(new Set(['deep-flow', 'deep-map', 'deep-block', 'bomb', folderOf(7)].map(path)));
    expect((await skillContracts()).length).toBe(FILES);
  }, 30_000);
});
