/**
 * A mutating MCP call stopped before its server answered has an unknown outcome, whatever the
 * server says afterwards: the fixture's `late_write` ignores cancellation but keeps answering
 * pings, and writes its file after the call was given up on. Capstan records `outcome_unknown`
 * and arms the mutation gate, so the next write waits for the operator's acknowledgement.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { fixtureStdio, send, waitFor, waitForProvider, type Json } from '../support/mcp';

let gw: TestGateway;
const folder = mkdtempSync(join(tmpdir(), 'capstan-late-write-'));

beforeAll(async () => {
  gw = await startTestGateway({
    config: {
      cancellation: { graceMs: 500 },
      // The server may go 700 ms without answering: then Capstan stops the call.
      mcpServers: { fixture: { ...fixtureStdio({ FIXTURE_LATE_WRITE: '1' }), timeoutMs: 700 } },
    },
  });
  await waitForProvider(gw.host, 'fixture');
});
afterAll(async () => {
  await gw.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** A destructive tool needs the operator's confirmation: the call is sent again with the challenge's id. */
async function call(tool: string, args: Json, requestId: string) {
  const first = await send(gw, 'POST', '/tools/call', { tool, arguments: args, sessionId: 'late', requestId });
  if (first.body.error?.code !== 'CONFIRMATION_REQUIRED') return first;
  return send(gw, 'POST', '/tools/call', { tool, arguments: args, sessionId: 'late', requestId, confirmation: first.body.error.challenge.id });
}

it('a write past its deadline is outcome_unknown though its server still answers pings, and the next write waits for an acknowledgement', async () => {
  const target = join(folder, 'late.txt');
  const { status, body } = await call('fixture:late_write', { path: target, text: 'late', ms: 2000 }, 'late-1');
  expect(status).toBe(504);
  expect(body.error).toMatchObject({ code: 'OUTCOME_UNKNOWN', message: expect.stringContaining('MCP does not acknowledge a cancellation') });
  // The write happens anyway, after Capstan gave up on it: exactly why its outcome was unknown.
  await waitFor('the late write', () => (existsSync(target) ? true : undefined), 5000);
  expect(readFileSync(target, 'utf8')).toBe('late');

  const blocked = await call('fixture:late_write', { path: join(folder, 'next.txt'), text: 'next', ms: 10 }, 'late-2');
  expect(blocked.body.error).toMatchObject({ code: 'MUTATION_BLOCKED', blockedBy: 'late-1' });
  const session = (await send(gw, 'GET', '/tasks')).body.sessions.find((candidate: Json) => candidate.id === 'late');
  expect(session.unknownOutcomes.map((outcome: Json) => outcome.requestId)).toEqual(['late-1']);
  // The first call_finished is the confirmation round trip's; the last is the call's.
  const finished = (await send(gw, 'GET', '/ledger?requestId=late-1&kind=call_finished')).body.entries.at(-1);
  expect(finished.details).toMatchObject({ status: 'outcome_unknown', code: 'OUTCOME_UNKNOWN' });
});
