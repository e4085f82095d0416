import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { skill, skillsDir, type SkillsDir } from '../support/skills';

let gw: TestGateway;
let skills: SkillsDir;

beforeAll(async () => {
  skills = skillsDir();
  gw = await startTestGateway({ skillsDirs: [skills.dir] });
});
afterAll(async () => {
  await gw.stop();
  skills.cleanup();
});

/** Reads Server-Sent Events from a response until `count` events arrived. */
async function readEvents(response: Response, count: number): Promise<{ event: string; data: unknown }[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: { event: string; data: unknown }[] = [];
  let buffer = '';
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) events.push({ event, data: JSON.parse(data) });
    }
  }
  await reader.cancel();
  return events;
}

describe('GET /events', () => {
  it('needs the token', async () => {
    expect((await fetch(`${gw.url}/events`)).status).toBe(401);
  });

  it('streams catalog changes as they happen: provider toggles and skill files', async () => {
    const controller = new AbortController();
    const response = await fetch(`${gw.url}/events`, { headers: { authorization: `Bearer ${gw.token}` }, signal: controller.signal });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const received = readEvents(response, 3);
    await gw.request('/providers/enabled', { method: 'POST', body: { provider: 'builtin', enabled: false } });
    await gw.request('/providers/enabled', { method: 'POST', body: { provider: 'builtin', enabled: true } });
    skills.write('fresh', skill('name: fresh\ndescription: Written while the console watches'));
    const events = await received;
    expect(events.map((e) => [e.event, (e.data as { provider: string; reason: string }).reason])).toEqual([
      ['catalog', 'disabled'],
      ['catalog', 'enabled'],
      ['catalog', 'changed'],
    ]);
    const generations = events.map((e) => (e.data as { catalogGeneration: number }).catalogGeneration);
    expect(generations).toEqual([...generations].sort((a, b) => a - b));
    controller.abort();
  });
});
