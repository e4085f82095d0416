/** server-filesystem on a temporary folder, as a real child process, through the real gateway. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { filesystemStdio, send, serverPid, waitFor, waitForProvider, type Json } from '../support/mcp';

let gateway: TestGateway;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'capstan-fs-'));
  writeFileSync(join(folder, 'hello.txt'), 'hello from disk\n');
  gateway = await startTestGateway({ config: { mcpServers: { files: filesystemStdio(folder) } } });
  await waitForProvider(gateway.host, 'files');
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** A confirmed call: the 428 challenge, answered by re-sending the call with its id. */
async function confirmed(body: Json) {
  const first = await gateway.call(body);
  if (first.status !== 428) return first;
  return gateway.call({ ...body, confirmation: (first.body.error?.challenge as Json).id });
}

describe('server-filesystem on a temporary folder', () => {
  it('reads without confirmation (readOnlyHint) and asks before writing (destructive)', async () => {
    const read = await gateway.call({ tool: 'files:read_text_file', arguments: { path: join(folder, 'hello.txt') } });
    expect(read.body).toMatchObject({ ok: true, result: { content: [{ type: 'text', text: 'hello from disk\n' }] } });

    const path = join(folder, 'written.txt');
    const asked = await gateway.call({ tool: 'files:write_file', arguments: { path, content: 'first' } });
    expect(asked.status).toBe(428);
    expect(asked.body.error?.code).toBe('CONFIRMATION_REQUIRED');
    expect(() => readFileSync(path)).toThrow();
    const written = await confirmed({ tool: 'files:write_file', arguments: { path, content: 'first' } });
    expect(written.body.ok).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('first');
  });

  it('leaves a write whose server dies mid-call unknown: MUTATION_BLOCKED on the next write until it is acknowledged', async () => {
    const path = join(folder, 'lost.txt');
    const body = { tool: 'files:write_file', arguments: { path, content: 'maybe' }, sessionId: 'writer', requestId: 'lost-write' };
    const challenge = (await gateway.call(body)).body.error?.challenge as Json;
    // Frozen, the server cannot answer: the write is surely in flight when it dies.
    const pid = serverPid(gateway.host, 'files');
    process.kill(pid, 'SIGSTOP');
    const call = gateway.call({ ...body, confirmation: challenge.id });
    await waitFor('the write to start', () => gateway.host.ledger.query({ requestId: 'lost-write', kind: 'call_started' }).find((entry) => !entry.details.confirmationRequested));
    process.kill(pid, 'SIGKILL');
    const { status, body: answer } = await call;
    expect(status).toBe(504);
    expect(answer.error?.code).toBe('OUTCOME_UNKNOWN');
    const taskId = answer.taskId as string;

    // The server comes back by itself; the next write in that session is refused before it asks for confirmation.
    await waitForProvider(gateway.host, 'files', 'ready');
    const blocked = await gateway.call({ tool: 'files:write_file', arguments: { path, content: 'again' }, sessionId: 'writer' });
    expect(blocked.status).toBe(423);
    expect(blocked.body.error?.code).toBe('MUTATION_BLOCKED');
    const read = await gateway.call({ tool: 'files:list_directory', arguments: { path: folder }, sessionId: 'writer' });
    expect(read.body.ok).toBe(true);

    const session = (await send(gateway, 'GET', '/tasks')).body.sessions.find((s: Json) => s.id === 'writer');
    expect(session.unknownOutcomes).toEqual([expect.objectContaining({ requestId: 'lost-write', capability: 'files:write_file' })]);
    expect((await send(gateway, 'POST', `/tasks/${taskId}/acknowledge`, { requestId: 'lost-write' })).status).toBe(200);
    const after = await confirmed({ tool: 'files:write_file', arguments: { path, content: 'certain' }, sessionId: 'writer' });
    expect(after.body.ok).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('certain');
  }, 60_000);
});
