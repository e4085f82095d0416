/**
 * Issue 18 item 3: an agent cannot read a skill hidden from the model (`disable-model-invocation:
 * true`) nor learn that one exists. A direct `/name` activation is the operator's: an agent asking
 * for one is refused FORBIDDEN_FOR_AGENT before anything is read, whatever the name; a reference
 * to a hidden skill is answered exactly as one to a skill that does not exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import type { Json } from '../support/mcp';
import { skill, skillsDir, type SkillsDir } from '../support/skills';

let gw: TestGateway;
let skills: SkillsDir;
let agentToken: string;

async function as(token: string, operation: string, body: Json): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${gw.url}/discovery/${operation}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
}
/** An answer without what differs between any two requests (their requestIds). */
const shape = ({ status, body }: { status: number; body: Json }) => ({ status, ok: body.ok, error: body.error });

beforeAll(async () => {
  skills = skillsDir();
  skills.write('release', skill('name: release-checklist\ndescription: Steps before a release', '# Release\nTag, build, ship.\n'));
  skills.write('secret-ops', skill('name: secret-ops\ndescription: Operator-only steps\ndisable-model-invocation: true', 'Only for /secret-ops: the vault code is 1234\n'));
  gw = await startTestGateway({ skillsDirs: [skills.dir] });
  agentToken = gw.host.agents.create('reader').token;
});
afterAll(async () => {
  await gw.stop();
  skills.cleanup();
});

describe('an agent and skills hidden from the model', () => {
  it('is refused a direct activation whatever the name, with the same answer, before any session or task is made for it', async () => {
    const hidden = await as(agentToken, 'skills_activate', { name: 'secret-ops', direct: true });
    const slashed = await as(agentToken, 'skills_activate', { name: '/secret-ops', direct: true });
    const unknown = await as(agentToken, 'skills_activate', { name: 'no-such-skill', direct: true });
    const visible = await as(agentToken, 'skills_activate', { name: 'release-checklist', direct: true });
    expect(hidden.status).toBe(403);
    expect(hidden.body.error.code).toBe('FORBIDDEN_FOR_AGENT');
    expect(JSON.stringify(hidden.body)).not.toContain('vault code');
    for (const other of [slashed, unknown, visible]) expect(shape(other)).toEqual(shape(hidden));
    // Not even a malformed direct request gets further (refused before the input is read).
    expect(shape(await as(agentToken, 'skills_activate', { direct: 'yes', name: 'secret-ops', extra: 1 }))).toEqual(shape(hidden));
    const tasks = (await (await gw.request('/tasks')).json()) as Json;
    expect(tasks.tasks.filter((task: Json) => String(task.sessionId).startsWith('agent:reader'))).toEqual([]);
  });

  it('gets the same answer for a reference to a hidden skill as for one to a skill that does not exist', async () => {
    const forged = (id: string) => ({ id, catalogGeneration: gw.host.catalog.generation, contractHash: 'a'.repeat(64), bindingGeneration: 1 });
    for (const operation of ['skills_activate', 'capabilities_inspect']) {
      const hidden = await as(agentToken, operation, { reference: forged('skills:secret-ops') });
      const unknown = await as(agentToken, operation, { reference: forged('skills:no-such-skill') });
      expect(hidden.body.error.code).toBe('CAPABILITY_NOT_FOUND');
      expect(JSON.stringify(hidden.body)).not.toContain('vault code');
      expect({ ...shape(hidden), error: { ...hidden.body.error, message: hidden.body.error.message.replace('secret-ops', 'NAME') } }).toEqual({
        ...shape(unknown),
        error: { ...unknown.body.error, message: unknown.body.error.message.replace('no-such-skill', 'NAME') },
      });
    }
    // `direct: false` is the model's activation, which an agent may use with what discovery gave it.
    const found = await as(agentToken, 'capabilities_search', { query: 'release' });
    const reference = found.body.items.find((item: Json) => item.name === 'release-checklist').reference;
    expect((await as(agentToken, 'skills_activate', { reference, direct: false })).body).toMatchObject({ status: 'activated', body: '# Release\nTag, build, ship.\n' });
  });

  it("still lets the operator activate a hidden skill as /name", async () => {
    const direct = await as(gw.token, 'skills_activate', { sessionId: 'operator-direct', name: '/secret-ops', direct: true });
    expect(direct.body).toMatchObject({ status: 'activated', body: 'Only for /secret-ops: the vault code is 1234\n' });
  });
});
