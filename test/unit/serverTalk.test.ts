/**
 * What Capstan keeps of what a server says: its log lines (serverLog.ts) and the protocol
 * messages (protocolLog.ts), bounded, with the entry's secrets masked, and each message tied to
 * the call it belongs to. The messages travel over the SDK's own in-memory transport pair.
 */
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ProtocolLog } from '../../electron/providers/mcp/protocolLog';
import { ServerLog } from '../../electron/providers/mcp/serverLog';
import { SECRET_MASK } from '../../shared/mcp';
import { PROTOCOL_LOG_MESSAGES } from '../../shared/protocolLog';
import { SERVER_LOG_DATA_CHARS, SERVER_LOG_LINES, type ServerLogLine } from '../../shared/serverLog';

const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123';

describe('ServerLog', () => {
  it('keeps the last lines with their level, masks secrets, cuts long data, and filters by level and position', () => {
    const published: ServerLogLine[] = [];
    const log = new ServerLog({ server: 'demo', secrets: () => [SECRET], onLine: (line) => published.push(line) });
    log.add({ level: 'info', logger: 'db', data: `token ${SECRET} used` });
    log.add({ level: 'error', data: { code: 7 } });
    log.add({ level: 'loud', data: 'x'.repeat(SERVER_LOG_DATA_CHARS + 10) });
    const { lines } = log.view();
    expect(lines.map((line) => [line.seq, line.level, line.logger])).toEqual([
      [1, 'info', 'db'],
      [2, 'error', null],
      [3, 'info', null],
    ]);
    expect(lines[0]!.data).toBe(`token ${SECRET_MASK} used`);
    expect(lines[1]!.data).toBe('{"code":7}');
    expect(lines[2]!.data).toHaveLength(SERVER_LOG_DATA_CHARS + 1);
    expect(published).toEqual(lines);
    expect(log.view({ level: 'warning' }).lines.map((line) => line.seq)).toEqual([2]);
    expect(log.view({ after: 2 }).lines.map((line) => line.seq)).toEqual([3]);
    for (let index = 0; index < SERVER_LOG_LINES; index += 1) log.add({ level: 'debug', data: String(index) });
    expect(log.view()).toMatchObject({ dropped: 3, lines: expect.any(Array) });
    expect(log.view().lines).toHaveLength(SERVER_LOG_LINES);
  });
});

describe('ProtocolLog', () => {
  async function wired() {
    const [client, server] = InMemoryTransport.createLinkedPair();
    const received: JSONRPCMessage[] = [];
    const log = new ProtocolLog('demo', () => [SECRET]);
    log.capture(client);
    client.onmessage = (message) => void received.push(message);
    server.onmessage = () => {};
    await client.start();
    await server.start();
    return { client, server, log, received };
  }

  it("ties a call's request, progress, answer and a server request during it to the call's requestId, with timing and size, secrets masked", async () => {
    const { client, server, log, received } = await wired();
    await client.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { key: SECRET }, _meta: { requestId: 'req-1', progressToken: 7 } } });
    await server.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1 } });
    await server.send({ jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: { message: 'name?' } });
    await client.send({ jsonrpc: '2.0', id: 0, result: { action: 'decline' } });
    await server.send({ jsonrpc: '2.0', id: 7, result: { content: [] } });
    await server.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } });
    expect(received).toHaveLength(4);
    const { messages } = log.view();
    expect(messages.map((message) => [message.direction, message.kind, message.method, message.requestId])).toEqual([
      ['out', 'request', 'tools/call', 'req-1'],
      ['in', 'notification', 'notifications/progress', 'req-1'],
      ['in', 'request', 'elicitation/create', 'req-1'],
      ['out', 'response', 'elicitation/create', 'req-1'],
      ['in', 'response', 'tools/call', 'req-1'],
      ['in', 'notification', 'notifications/message', null],
    ]);
    expect(messages[4]!.durationMs).toEqual(expect.any(Number));
    expect(messages[0]!.json).not.toContain(SECRET);
    expect(messages[0]!.json).toContain(SECRET_MASK);
    expect(messages[0]!.size).toBe(Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { key: SECRET }, _meta: { requestId: 'req-1', progressToken: 7 } } })));
    expect(log.view({ requestId: 'req-1' }).messages).toHaveLength(5);
    expect(log.view({ q: 'ELICITATION name' }).messages.map((message) => message.kind)).toEqual(['request']);
  });

  it('forgets a cancelled request, so a later server request is tied to the one call still running; and keeps only the last messages', async () => {
    const { client, server, log } = await wired();
    await client.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: { requestId: 'gone' } } });
    await client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await client.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { _meta: { requestId: 'running' } } });
    expect(log.callsInFlight()).toEqual(['running']);
    await server.send({ jsonrpc: '2.0', id: 5, method: 'sampling/createMessage', params: {} });
    expect(log.view().messages.at(-1)).toMatchObject({ method: 'sampling/createMessage', requestId: 'running' });
    expect(log.view().messages[1]).toMatchObject({ method: 'notifications/cancelled', requestId: 'gone' });
    for (let index = 0; index < PROTOCOL_LOG_MESSAGES; index += 1) await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(log.view()).toMatchObject({ dropped: 4 });
    expect(log.view().messages).toHaveLength(PROTOCOL_LOG_MESSAGES);
    // Well past twice the window: still the newest PROTOCOL_LOG_MESSAGES, in order, the rest counted.
    for (let n = 1; n <= PROTOCOL_LOG_MESSAGES + 10; n += 1) await client.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'x', progress: n } });
    const { messages, dropped } = log.view();
    expect(dropped).toBe(4 + PROTOCOL_LOG_MESSAGES + 10);
    expect(messages).toHaveLength(PROTOCOL_LOG_MESSAGES);
    expect(messages.map((message) => JSON.parse(message.json).params.progress)).toEqual(Array.from({ length: PROTOCOL_LOG_MESSAGES }, (_, i) => i + 11));
    expect(log.view({ limit: 3 }).messages.map((message) => message.seq)).toEqual([messages.at(-3)!.seq, messages.at(-2)!.seq, messages.at(-1)!.seq]);
  });
});
