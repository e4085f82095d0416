import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { aliasBomb, invalidUtf8, loneSurrogate, skill, skillsDir, type SkillsDir } from '../support/skills';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let gw: TestGateway;
let skills: SkillsDir;
let outside: string;
const get = async (path: string) => (await (await gw.request(path)).json()) as Json;
const skillNames = async () => ((await get('/catalog')).capabilities as Json[]).filter((c) => c.contract.kind === 'skill').map((c) => c.contract.name);
const diagnostics = async () => Object.fromEntries(((await get('/diagnostics')).diagnostics as Json[]).map((d) => [d.path, d]));

beforeAll(async () => {
  skills = skillsDir();
  outside = mkdtempSync(join(tmpdir(), 'capstan-outside-'));
  writeFileSync(join(outside, 'SKILL.md'), skill('name: smuggled\ndescription: A file from outside the skills folder', 'private notes\n'));

  skills.write('release', skill('name: release\ndescription: Release steps'));
  skills.write('triage', skill('name: triage\ndescription: Triage a ticket'));
  // As big as the default limit allows, and as slow to count as text gets: one 250 KiB word.
  skills.write('long-word', skill('name: long-word\ndescription: One very long word', `${'a'.repeat(250 * 1024)}\n`));

  skills.write('bomb', aliasBomb('bomb'));
  skills.write('surrogate', loneSurrogate('surrogate'));
  skills.write('not-utf8', invalidUtf8('not-utf8'));
  skills.fifo('fifo');
  skills.write('huge', skill('name: huge\ndescription: Over the limit', 'x'.repeat(300 * 1024)));
  skills.link('escape', outside);

  gw = await startTestGateway({ skillsDirs: [skills.dir] });
});
afterAll(async () => {
  await gw?.stop();
  skills.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

describe('a skills folder holding hostile files', () => {
  it('does not stop the start: the good skills are listed and each bad file has a diagnostic naming it', async () => {
    expect(await skillNames()).toEqual(['long-word', 'release', 'triage']);
    const byPath = await diagnostics();
    const reason = (folder: string) => byPath[join(skills.dir, folder, 'SKILL.md')]?.reason;
    expect(reason('bomb')).toMatch(/Excessive alias count/);
    expect(reason('surrogate')).toMatch(/"description" is not valid Unicode/);
    expect(reason('not-utf8')).toMatch(/not valid UTF-8/);
    expect(byPath[join(skills.dir, 'not-utf8', 'SKILL.md')]?.line).toBe(3);
    expect(reason('fifo')).toMatch(/not a regular file \(a FIFO\)/);
    expect(reason('huge')).toMatch(/more than the 262144-byte limit/);
    expect(reason('escape')).toMatch(/leads outside its skills folder/);
    expect(JSON.stringify(await get('/catalog'))).not.toContain('smuggled');
  });

  it('activates the largest allowed skill without holding up other requests', async () => {
    // The tokenizer's tables are built on a process's first count (a one-time ~0.2 s, see
    // runtime/admission.ts): paid here by a small skill, so what is timed is the hostile word.
    const small = await gw.request('/discovery/skills_activate', { method: 'POST', body: { sessionId: 'warm-up', name: 'release', direct: true } });
    expect(small.status).toBe(200);
    let done = false;
    const started = performance.now();
    const activation = gw
      .request('/discovery/skills_activate', { method: 'POST', body: { sessionId: 'long-word', name: 'long-word', direct: true } })
      .finally(() => (done = true));
    const latencies: number[] = [];
    while (!done) {
      const sent = performance.now();
      expect((await gw.request('/tools')).status).toBe(200);
      latencies.push(performance.now() - sent);
    }
    const answer = (await (await activation).json()) as Json;
    const activationMs = performance.now() - started;
    expect(answer).toMatchObject({ status: 'activated', admission: { scope: 'task' } });
    expect(answer.admission.tokens).toBeGreaterThan(30_000);
    // Counting that one word took 117 s in a single tokenizer call, with every request waiting.
    expect(activationMs).toBeLessThan(5_000);
    expect(Math.max(...latencies)).toBeLessThan(500);
  });

  it('turns a skill edited to become hostile into a diagnostic, and the other skills keep updating', async () => {
    skills.write('release', aliasBomb('release'));
    await expect
      .poll(async () => (await diagnostics())[join(skills.dir, 'release', 'SKILL.md')]?.reason, { timeout: 5_000 })
      .toMatch(/Excessive alias count/);
    expect(await skillNames()).toEqual(['long-word', 'triage']);

    skills.write('triage', skill('name: triage\ndescription: Triage a ticket, edited while running'));
    await expect
      .poll(async () => ((await get('/catalog')).capabilities as Json[]).find((c) => c.contract.name === 'triage')?.contract.description, { timeout: 5_000 })
      .toBe('Triage a ticket, edited while running');
  });
});
