import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EVENT_STREAMS, STREAM_BUFFER_LIMIT_BYTES } from '../../electron/transports/eventStream';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { neverReading } from '../support/rawHttp';
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

const openStream = (url: string, token: string, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(`${url}/events`, { headers: { authorization: `Bearer ${token}`, ...headers }, ...(signal ? { signal } : {}) });

/** Polls until `check` holds, for what the server does on its own time (noticing a closed socket). */
async function eventually(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}

describe('GET /events under load', () => {
  it(`refuses stream ${MAX_EVENT_STREAMS + 1} with TOO_MANY_STREAMS, and takes one again once a stream closes`, async () => {
    // The server's side of each stream, to know when it has let go of them all.
    let open = 0;
    const count = (request: { url?: string }, response: ServerResponse) => {
      if (!request.url?.startsWith('/events')) return;
      open += 1;
      response.once('close', () => (open -= 1));
    };
    gw.gateway.app.server.on('request', count);
    const controllers = Array.from({ length: MAX_EVENT_STREAMS }, () => new AbortController());
    const streams = await Promise.all(controllers.map((controller) => openStream(gw.url, gw.token, {}, controller.signal)));
    expect(streams.map((response) => response.status)).toEqual(Array(MAX_EVENT_STREAMS).fill(200));

    const refused = await openStream(gw.url, gw.token);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ ok: false, requestId: expect.any(String), error: { code: 'TOO_MANY_STREAMS' } });
    // Other requests are not affected by the streams' limit.
    expect((await gw.request('/tools')).status).toBe(200);

    controllers[0]!.abort();
    await eventually(async () => {
      const again = await openStream(gw.url, gw.token);
      const accepted = again.status === 200;
      await again.body?.cancel();
      return accepted;
    });
    for (const controller of controllers) controller.abort();
    await eventually(() => open === 0);
    gw.gateway.app.server.off('request', count);
  });

  it('refuses a resume point that is not a sequence number', async () => {
    for (const headers of [{ 'last-event-id': 'abc' }, { 'last-event-id': '-1' }, { 'last-event-id': '1e3' }]) {
      const response = await openStream(gw.url, gw.token, headers);
      expect(response.status, JSON.stringify(headers)).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    }
    const query = await gw.request('/events?after=0x10');
    expect(query.status).toBe(400);
  });

  it('drops a client that stops reading once its buffer passes the bound; it catches up after reconnecting', async () => {
    const own = await startTestGateway();
    try {
      // The server's side of the slow client's stream, to watch how much it holds for it.
      let held: ServerResponse | undefined;
      own.gateway.app.server.on('request', (request, response) => {
        if (request.url === '/events') held = response;
      });
      const socket = await neverReading(own.url, '/events', { authorization: `Bearer ${own.token}` });
      await eventually(() => held !== undefined);
      const stream = held!;

      // About 25 MB of events: far more than the kernel's socket buffers absorb on loopback.
      const padding = 'x'.repeat(64 * 1024);
      let peak = 0;
      let appended = 0;
      while (!stream.destroyed && appended < 400) {
        for (let i = 0; i < 4; i++, appended++) own.host.ledger.append({ kind: 'steer', details: { padding } });
        await own.host.ledger.durable();
        await nextTurn();
        if (!stream.destroyed) peak = Math.max(peak, stream.writableLength);
      }
      expect(stream.destroyed).toBe(true);
      expect(appended).toBeLessThan(400);
      expect(peak).toBeLessThanOrEqual(STREAM_BUFFER_LIMIT_BYTES);

      // What the client did get ends with whole events, in order; the rest comes on reconnecting.
      socket.resume();
      let text = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      await new Promise((resolve) => socket.once('close', resolve));
      const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
      expect(ids.length).toBeGreaterThan(0);
      expect(ids).toEqual(ids.map((_, i) => ids[0]! + i));
      const last = ids.at(-1)!;
      const resumed = await openStream(own.url, own.token, { 'last-event-id': String(last) });
      const next = await readEvents(resumed, 3);
      expect(next.map((event) => (event.data as { entry: { seq: number } }).entry.seq)).toEqual([last + 1, last + 2, last + 3]);
    } finally {
      await own.stop();
    }
  });

  it('replays a large ledger in pages: every entry once, in order, and other requests are answered meanwhile', async () => {
    const own = await startTestGateway();
    try {
      const from = own.host.ledger.lastSeq;
      const count = 20_000;
      for (let i = 0; i < count; i++) own.host.ledger.append({ kind: 'steer', details: { n: i } });
      await own.host.ledger.durable();
      // When the server writes the replay's last entry. Written in one go, nothing else could run before it.
      let replayWritten = Infinity;
      own.gateway.app.server.on('request', (request, response) => {
        if (!request.url?.startsWith('/events')) return;
        const write = response.write.bind(response) as (chunk: unknown) => boolean;
        response.write = ((chunk: unknown) => {
          if (String(chunk).startsWith(`id: ${from + count}\n`)) replayWritten = performance.now();
          return write(chunk);
        }) as typeof response.write;
      });

      const controller = new AbortController();
      const response = await openStream(own.url, own.token, { 'last-event-id': String(from) }, controller.signal);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      const seqs: number[] = [];
      let buffer = '';
      let tools: Promise<number> | undefined;
      while (seqs.length < count + 1) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        const cut = buffer.lastIndexOf('\n\n');
        for (const match of buffer.slice(0, cut).matchAll(/^id: (\d+)$/gm)) seqs.push(Number(match[1]));
        buffer = buffer.slice(cut + 2);
        // Asked once the replay is under way: the answer must not wait for the whole ledger.
        tools ??= own.request('/tools').then(async (answer) => {
          expect(answer.status).toBe(200);
          await answer.arrayBuffer();
          return performance.now();
        });
        // An entry appended once the replay is read follows it, once.
        if (seqs.length === count) own.host.ledger.append({ kind: 'steer', details: { n: 'live' } });
      }
      controller.abort();
      expect(seqs).toEqual(Array.from({ length: count + 1 }, (_, i) => from + 1 + i));
      expect(await tools).toBeLessThan(replayWritten);
    } finally {
      await own.stop();
    }
  });
});
