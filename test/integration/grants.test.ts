import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';

let gw: TestGateway;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const post = async (path: string, body: Json = {}) => {
  const response = await gw.request(path, { method: 'POST', body });
  return { status: response.status, body: (await response.json()) as Json };
};

beforeAll(async () => {
  gw = await startTestGateway({ config: { grants: [{ pattern: '*', authority: 'execute' }] } });
});
afterAll(() => gw.stop());

describe('POST /tasks/<id>/grants with a hostile pattern', () => {
  it('answers promptly, and other requests are served meanwhile', async () => {
    const task = await post('/tasks', { action: 'start', sessionId: 'hostile', title: 'grant patterns from a client' });
    const hostile = await post(`/tasks/${task.body.id}/grants`, { grant: { pattern: '*a*a*a*a*a*a*b', authority: 'inspect' } });
    expect(hostile.status).toBe(200);

    // The next reduction is itself matched against the hostile one. As a RegExp this took
    // seconds for 80 characters (and hours for 257), with the whole gateway stalled.
    const started = performance.now();
    const [longPattern, tools] = await Promise.all([
      post(`/tasks/${task.body.id}/grants`, { grant: { pattern: 'a'.repeat(80), authority: 'discover' } }),
      gw.request('/tools'),
    ]);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(longPattern.status).toBe(200);
    expect(tools.status).toBe(200);
    const recorded = (await (await gw.request(`/ledger?taskId=${task.body.id}&kind=grant_reduced`)).json()) as Json;
    expect(recorded.entries.map((e: Json) => e.details.pattern)).toEqual(['*a*a*a*a*a*a*b', 'a'.repeat(80)]);
  });

  it('refuses a pattern longer than any capability id could need', async () => {
    const task = await post('/tasks', { action: 'start', sessionId: 'too-long', title: 'a long pattern' });
    const refused = await post(`/tasks/${task.body.id}/grants`, { grant: { pattern: '*a'.repeat(200), authority: 'inspect' } });
    expect(refused.status).toBe(400);
  });
});
