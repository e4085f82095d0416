/**
 * What the console's Ledger, Skill and Diagnostics views read, through real HTTP on a real
 * gateway: ledger filters matching any part of an id, a skill's body with its token cost, and the
 * lines of a broken skill file around its diagnostic, hostile characters made visible.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerPage, ledgerValueMatches } from '../../shared/ledger';
import { estimateTokens } from '../../electron/runtime/admission';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { skill, skillsDir, type SkillsDir } from '../support/skills';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let gw: TestGateway;
let skills: SkillsDir;
const get = async (path: string) => {
  const response = await gw.request(path);
  return { status: response.status, body: (await response.json()) as Json };
};
const ledger = async (query: string) => LedgerPage.parse((await get(`/ledger?${query}`)).body).entries;

const BODY = '# Release\n\nTag the build, then\u202Eevil\u202C announce it.\n';
// Line 5 is the bad field; around it, an escape sequence and a very long line.
const BROKEN = ['---', 'name: broken', 'description: Broken on purpose', '# \u001b[31mred\u001b[0m', 'tags: [unclosed', `long: ${'x'.repeat(1000)}`, '---', 'Body'].join('\n');

beforeAll(async () => {
  skills = skillsDir();
  skills.write('release', skill('name: release\ndescription: Release steps', BODY));
  skills.write('broken', BROKEN);
  gw = await startTestGateway({ skillsDirs: [skills.dir] });
  for (const requestId of ['ops-Alpha-7f3a91', 'ops-beta-7f3a92', 'other-50_off']) {
    expect((await gw.call({ tool: 'time_now', requestId })).status).toBe(200);
  }
});
afterAll(async () => {
  await gw?.stop();
  skills.cleanup();
});

describe('GET /ledger with match=contains', () => {
  it('finds a requestId by any part of it, in either case, and exact matching stays the default', async () => {
    const ids = (entries: { requestId: string | null }[]) => [...new Set(entries.map((entry) => entry.requestId))];
    expect(ids(await ledger('requestId=7f3a9&match=contains'))).toEqual(['ops-Alpha-7f3a91', 'ops-beta-7f3a92']);
    expect(ids(await ledger('requestId=ALPHA&match=contains'))).toEqual(['ops-Alpha-7f3a91']);
    // The start of an id is a part of it too.
    expect(ids(await ledger('requestId=ops-&match=contains'))).toHaveLength(2);
    // _ is a character to find, not a wildcard.
    expect(ids(await ledger('requestId=_&match=contains'))).toEqual(['other-50_off']);
    expect(await ledger('requestId=7f3a9')).toEqual([]);
    expect(ids(await ledger('requestId=ops-beta-7f3a92'))).toEqual(['ops-beta-7f3a92']);
  });

  it('applies the same rule as the console does with the entries it holds', async () => {
    const all = await ledger('limit=1000');
    for (const wanted of ['7F3A', 'builtin:time', 'task-', 'operator', 'zzz']) {
      const fromGateway = (await ledger(`capability=${encodeURIComponent(wanted)}&match=contains&limit=1000`)).map((entry) => entry.seq);
      expect(fromGateway, wanted).toEqual(all.filter((entry) => ledgerValueMatches(entry.capability, wanted, 'contains')).map((entry) => entry.seq));
    }
    const byTask = (await ledger('taskId=task-&match=contains&limit=1000')).map((entry) => entry.seq);
    expect(byTask).toEqual(all.filter((entry) => entry.taskId !== null).map((entry) => entry.seq));
  });

  it('refuses a match mode it does not know', async () => {
    const { status, body } = await get('/ledger?requestId=x&match=fuzzy');
    expect(status).toBe(400);
    expect(body.error.code).toBe('BAD_REQUEST');
  });
});

describe('a call that ran and failed', () => {
  it('has one duration: its run record says what its call_finished entry says', async () => {
    const { status } = await gw.call({ tool: 'time_now', arguments: { timezone: 'Mars/Olympus_Mons' }, requestId: 'fails-after-running' });
    expect(status).toBeGreaterThanOrEqual(400);
    const [finished] = await ledger('requestId=fails-after-running&kind=call_finished');
    expect(finished?.details.status).toBe('error');
    const { body } = await get('/executions');
    const run = (body.executions as Json[]).find((record) => record.requestId === 'fails-after-running');
    expect(run?.status).toBe('error');
    expect(run?.durationMs).toBe(finished!.details.durationMs);
  });
});

describe('GET /catalog/skill', () => {
  it('answers the body exactly as activation reads it, and its token count as admission counts it', async () => {
    const { status, body } = await get('/catalog/skill?id=skills:release');
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: 'skills:release', path: join(skills.dir, 'release', 'SKILL.md'), body: BODY });
    expect(body.tokens).toBe(estimateTokens(BODY));
    expect(body.tokens).toBeGreaterThan(5);
  });

  it('names a capability that is not a skill as not found', async () => {
    expect((await get('/catalog/skill?id=builtin:time_now')).body.error.code).toBe('CAPABILITY_NOT_FOUND');
    expect((await get('/catalog/skill?id=skills:nope')).body.error.code).toBe('CAPABILITY_NOT_FOUND');
  });
});

describe('GET /diagnostics/excerpt', () => {
  const brokenPath = () => join(skills.dir, 'broken', 'SKILL.md');

  it('gives the lines around the diagnostic, bounded, with control characters shown rather than sent', async () => {
    const diagnostic = ((await get('/diagnostics')).body.diagnostics as Json[]).find((found) => found.path === brokenPath());
    expect(diagnostic).toMatchObject({ provider: 'skills', reason: expect.stringMatching(/invalid YAML/) });
    const line = diagnostic!.line as number;
    const { status, body } = await get(`/diagnostics/excerpt?path=${encodeURIComponent(brokenPath())}&line=${line}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ path: brokenPath(), line, firstLine: line - 3 });
    const lines = body.lines as string[];
    // Three lines either side, as far as the file goes.
    expect(lines).toHaveLength(Math.min(line + 3, BROKEN.split('\n').length) - (line - 3) + 1);
    expect(lines).toContain('tags: [unclosed');
    // The escape sequence arrives as the pictures of its characters, not as one.
    expect(lines).toContain('# ␛[31mred␛[0m');
    const long = lines.find((text) => text.startsWith('long: '))!;
    expect(long).toHaveLength(241);
    expect(long.endsWith('…')).toBe(true);
    expect(JSON.stringify(body)).not.toMatch(/\\u001b/);
  });

  it('reads no file that no current diagnostic names at that line', async () => {
    for (const query of [`path=${encodeURIComponent(brokenPath())}&line=1`, `path=${encodeURIComponent(join(skills.dir, 'release', 'SKILL.md'))}&line=1`, 'path=%2Fetc%2Fpasswd&line=1']) {
      const { status, body } = await get(`/diagnostics/excerpt?${query}`);
      expect(status, query).toBe(400);
      expect(body.error.code).toBe('ARGUMENT_INVALID');
    }
  });
});
