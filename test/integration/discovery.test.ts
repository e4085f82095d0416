import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN } from '../support/builtins';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { skill, skillsDir, type SkillsDir } from '../support/skills';

let gw: TestGateway;
let skills: SkillsDir;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function discover(operation: string, body: Json): Promise<{ status: number; body: Json }> {
  const response = await gw.request(`/discovery/${operation}`, { method: 'POST', body });
  return { status: response.status, body: (await response.json()) as Json };
}

beforeAll(async () => {
  skills = skillsDir();
  for (let i = 0; i < 30; i++) {
    const n = String(i).padStart(2, '0');
    skills.write(`runbook-${n}`, skill(`name: runbook-${n}\ndescription: Runbook ${n} for the printer fleet\ntags: [runbook, printer]`));
  }
  skills.write('release', skill('name: release-checklist\ndescription: Steps before a release\ntags: [release]', '# Release\nTag, build, ship.\n'));
  skills.write('secret-ops', skill('name: secret-ops\ndescription: Operator-only steps\ndisable-model-invocation: true', 'Only for /secret-ops\n'));
  gw = await startTestGateway({ skillsDirs: [skills.dir] });
});
afterAll(async () => {
  await gw.stop();
  skills.cleanup();
});

describe('capabilities_list', () => {
  it('returns 20 by default with a cursor, and walking the pages yields each capability once', async () => {
    const first = await discover('capabilities_list', { sessionId: 's-list' });
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(20);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const seen: string[] = first.body.items.map((i: Json) => i.reference.id);
    let cursor = first.body.nextCursor;
    while (cursor) {
      const next = await discover('capabilities_list', { sessionId: 's-list', cursor });
      seen.push(...next.body.items.map((i: Json) => i.reference.id));
      cursor = next.body.nextCursor;
    }
    const all = await discover('capabilities_list', { sessionId: 's-list', limit: 100 });
    expect(seen).toEqual(all.body.items.map((i: Json) => i.reference.id));
    expect(new Set(seen).size).toBe(seen.length);
    // The builtins + 31 model-discoverable skills; secret-ops is for manual /name use only.
    expect(seen).toHaveLength(BUILTIN.total + 31);
    expect(seen).not.toContain('skills:secret-ops');
  });

  it('refuses a limit over 100 and a bad or foreign cursor', async () => {
    const tooMany = await discover('capabilities_list', { sessionId: 's-list', limit: 101 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ code: 'ARGUMENT_INVALID', field: 'limit' });
    const bad = await discover('capabilities_list', { sessionId: 's-list', cursor: 'not-a-cursor' });
    expect(bad.body.error.code).toBe('BAD_CURSOR');
    const mine = await discover('capabilities_list', { sessionId: 's-list', limit: 5 });
    const foreign = await discover('capabilities_list', { sessionId: 's-other', cursor: mine.body.nextCursor });
    expect(foreign.body.error.code).toBe('BAD_CURSOR');
    const otherQuery = await discover('capabilities_search', { sessionId: 's-list', query: 'runbook', cursor: mine.body.nextCursor });
    expect(otherQuery.body.error.code).toBe('BAD_CURSOR');
  });

  it('filters by kind and provider', async () => {
    const tools = await discover('capabilities_list', { sessionId: 's-list', kind: 'tool', limit: 100 });
    expect(tools.body.items.map((i: Json) => i.name).sort()).toEqual(
      ['device_inspect', 'http_check', 'local_status', 'note_add', 'note_search', 'time_now', 'todo_add', 'todo_list'],
    );
    const fromSkills = await discover('capabilities_list', { sessionId: 's-list', provider: 'skills', limit: 100 });
    expect(fromSkills.body.items.every((i: Json) => i.kind === 'skill')).toBe(true);
  });
});

describe('capabilities_search', () => {
  it('is lexical-v1: scores, matched fields, deterministic order, empty when nothing matches', async () => {
    const { body } = await discover('capabilities_search', { sessionId: 's-search', query: 'note search' });
    expect(body.analyzer).toBe('lexical-v1');
    expect(body.items[0]).toMatchObject({ name: 'note_search', matched: expect.arrayContaining(['name']) });
    expect(body.items[0].score).toBeGreaterThan(body.items[1].score);
    const none = await discover('capabilities_search', { sessionId: 's-search', query: 'quantum teleport' });
    expect(none.body.items).toEqual([]);
    expect(none.body.nextCursor).toBeNull();
  });

  it('pages concatenate to the one-page result with no duplicates, for any page size', async () => {
    const { handlers } = gw.host;
    const context = { requestId: 'prop', log: gw.host.logger, principal: 'operator' as const };
    const full = await handlers.capabilitiesSearch({ sessionId: 's-prop', query: 'printer runbook time', limit: 100 }, context);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), async (limit) => {
        const ids: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await handlers.capabilitiesSearch({ sessionId: 's-prop', query: 'printer runbook time', limit, cursor }, context);
          ids.push(...page.items.map((i) => i.reference.id));
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        expect(ids).toEqual(full.items.map((i) => i.reference.id));
      }),
      { numRuns: 25 },
    );
  });
});

describe('inspect, load and activate', () => {
  it('inspects a tool by reference and loads its schema into the task context', async () => {
    const found = await discover('capabilities_search', { sessionId: 's-load', query: 'time_now' });
    const reference = found.body.items[0].reference;
    const inspected = await discover('capabilities_inspect', { sessionId: 's-load', reference });
    expect(inspected.body).toMatchObject({ contract: { id: 'builtin:time_now', kind: 'tool' }, held: 'execute' });
    const loaded = await discover('tools_load', { sessionId: 's-load', reference });
    expect(loaded.status).toBe(200);
    expect(loaded.body.inputSchema).toMatchObject({ type: 'object' });
    expect(loaded.body.admission).toMatchObject({ scope: 'step', ceiling: 113_600 });
    expect(loaded.body.admission.tokens).toBeGreaterThan(10);
    expect(loaded.body.taskId).toBe(found.body.taskId);
  });

  it('activates a skill, then refuses its reference once the SKILL.md changed', async () => {
    const found = await discover('capabilities_search', { sessionId: 's-skill', query: 'release checklist' });
    const reference = found.body.items[0].reference;
    expect(reference.id).toBe('skills:release-checklist');
    const activated = await discover('skills_activate', { sessionId: 's-skill', reference });
    expect(activated.body).toMatchObject({ status: 'activated', body: '# Release\nTag, build, ship.\n', admission: { scope: 'step' } });

    writeFileSync(join(skills.dir, 'release', 'SKILL.md'), skill('name: release-checklist\ndescription: Steps before a release\ntags: [release]', '# Release\nNow different.\n'));
    const stale = await discover('skills_activate', { sessionId: 's-skill', reference });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('STALE_CAPABILITY');
  });

  it('activates a hidden skill only directly, as /name, for the whole task', async () => {
    const hidden = await discover('skills_activate', { sessionId: 's-direct', name: 'secret-ops' });
    expect(hidden.body.error.code).toBe('ARGUMENT_MISSING');
    const direct = await discover('skills_activate', { sessionId: 's-direct', name: '/secret-ops', direct: true });
    expect(direct.body).toMatchObject({ status: 'activated', body: 'Only for /secret-ops\n', admission: { scope: 'task' } });
  });

  it('refuses a tool reference to skills_activate and an unknown task', async () => {
    const found = await discover('capabilities_search', { sessionId: 's-mix', query: 'time_now' });
    const wrong = await discover('skills_activate', { sessionId: 's-mix', reference: found.body.items[0].reference });
    expect(wrong.body.error.code).toBe('ARGUMENT_INVALID');
    const unknown = await discover('capabilities_list', { taskId: 'task-nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('TASK_NOT_FOUND');
  });
});

describe('the operator catalog', () => {
  it('shows everything, including skills hidden from models, with providers and diagnostics', async () => {
    skills.write('zz-broken', '---\nname: zz-broken\n---\nno description\n');
    await expect
      .poll(async () => ((await (await gw.request('/diagnostics')).json()) as Json).diagnostics.length, { timeout: 5000 })
      .toBe(1);
    const view = (await (await gw.request('/catalog')).json()) as Json;
    expect(view.capabilities.map((e: Json) => e.contract.id)).toContain('skills:secret-ops');
    expect(view.providers.map((p: Json) => p.name)).toEqual(['builtin', 'skills']);
    expect(view.diagnostics[0]).toMatchObject({ path: join(skills.dir, 'zz-broken', 'SKILL.md'), line: 2, reason: expect.stringContaining('description') });
    const search = (await (await gw.request('/catalog/search?query=secret')).json()) as Json;
    expect(search.hits[0]).toMatchObject({ id: 'skills:secret-ops', matched: ['name'] });
  });

  it('disables a provider at once: its tools are refused and model discovery no longer lists them', async () => {
    const before = await discover('capabilities_search', { sessionId: 's-disable', query: 'time_now' });
    const reference = before.body.items[0].reference;
    const off = await gw.request('/providers/enabled', { method: 'POST', body: { provider: 'builtin', enabled: false } });
    expect(off.status).toBe(200);
    try {
      const call = await gw.call({ tool: 'time_now' });
      expect(call.status).toBe(409);
      expect(call.body.error).toMatchObject({ code: 'PROVIDER_DISABLED' });
      const load = await discover('tools_load', { sessionId: 's-disable', reference });
      expect(load.body.error.code).toBe('PROVIDER_DISABLED');
      const listed = await discover('capabilities_list', { sessionId: 's-disable', kind: 'tool' });
      expect(listed.body.items).toEqual([]);
    } finally {
      await gw.request('/providers/enabled', { method: 'POST', body: { provider: 'builtin', enabled: true } });
    }
    expect((await gw.call({ tool: 'time_now' })).status).toBe(200);
  });

  it('revokes a capability for everyone', async () => {
    await gw.request('/catalog/revoked', { method: 'POST', body: { id: 'builtin:todo_list', revoked: true } });
    try {
      expect((await gw.call({ tool: 'todo_list' })).body.error).toMatchObject({ code: 'CAPABILITY_REVOKED' });
      const tools = (await (await gw.request('/tools')).json()) as Json;
      expect(tools.tools.map((t: Json) => t.name)).not.toContain('todo_list');
    } finally {
      await gw.request('/catalog/revoked', { method: 'POST', body: { id: 'builtin:todo_list', revoked: false } });
    }
    const unknown = await gw.request('/catalog/revoked', { method: 'POST', body: { id: 'builtin:nope', revoked: true } });
    expect(unknown.status).toBe(404);
  });
});

describe('configured grants and budget', () => {
  it('hide what is not granted, refuse operations above the grant, and refuse what does not fit', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'capstan-config-'));
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({
        grants: [
          { pattern: 'builtin:*', authority: 'inspect' },
          { pattern: 'builtin:time_now', authority: 'execute' },
          { pattern: 'skills:*', authority: 'activate' },
        ],
        admission: { budgetTokens: 1200, baseTokens: 600, marginTokens: 300 },
      }),
    );
    skills.write('handbook', skill('name: handbook\ndescription: The whole operations handbook', 'word '.repeat(400)));
    const own = await startTestGateway({ dataDir, skillsDirs: [skills.dir] });
    const ask = async (operation: string, body: Json) => {
      const response = await own.request(`/discovery/${operation}`, { method: 'POST', body });
      return { status: response.status, body: (await response.json()) as Json };
    };
    try {
      const found = await ask('capabilities_search', { sessionId: 's', query: 'http check' });
      const httpCheck = found.body.items.find((i: Json) => i.name === 'http_check');
      const denied = await ask('tools_load', { sessionId: 's', reference: httpCheck.reference });
      expect(denied.status).toBe(403);
      expect(denied.body.error).toMatchObject({ code: 'NOT_GRANTED', held: 'inspect', needed: 'load' });
      expect((await ask('capabilities_inspect', { sessionId: 's', reference: httpCheck.reference })).status).toBe(200);

      const runbook = (await ask('capabilities_search', { sessionId: 's', query: 'runbook-00' })).body.items[0];
      const small = await ask('skills_activate', { sessionId: 's', reference: runbook.reference });
      expect(small.body).toMatchObject({ status: 'activated', admission: { ceiling: 300, scope: 'step' } });
      const inUse = small.body.admission.inUse;

      // The handbook's body is about 400 tokens: more than the 300-token ceiling.
      const handbook = (await ask('capabilities_search', { sessionId: 's', query: 'handbook' })).body.items[0];
      const refused = await ask('skills_activate', { sessionId: 's', reference: handbook.reference });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ code: 'BUDGET_EXCEEDED', margin: 300, ceiling: 300, inUse });
      expect(refused.body.error.need).toBeGreaterThan(390);
      const skipped = await ask('skills_activate', { sessionId: 's', name: 'handbook', direct: true });
      expect(skipped.status).toBe(200);
      expect(skipped.body).toMatchObject({ status: 'skipped', ceiling: 300, inUse, message: expect.stringContaining('/handbook was not activated') });
    } finally {
      await own.stop();
    }
  });
});
