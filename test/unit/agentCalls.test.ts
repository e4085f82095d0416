/**
 * The Agent calls view's rows, derived from ledger entries alone: one per call an agent started,
 * from its approval request (or start) to its end, whoever wrote the entries between.
 */
import { describe, expect, it } from 'vitest';
import type { LedgerEntry, LedgerKind } from '../../shared/ledger';
import { agentCallsOf, agentNames } from '../../renderer/features/agent-calls/agentCalls';

let seq = 0;
const entry = (kind: LedgerKind, requestId: string | null, principal: string, details: Record<string, unknown> = {}): LedgerEntry => {
  seq += 1;
  return { seq, at: new Date(1_700_000_000_000 + seq).toISOString(), kind, taskId: 't1', sessionId: 's1', requestId, capability: 'builtin:http_check', principal, details, prevHash: '', hash: '' };
};

describe('agentCallsOf', () => {
  it('follows an approved call from its request to its end, newest first, and leaves out the operator’s own calls', () => {
    const entries = [
      entry('call_started', 'op-1', 'operator'),
      entry('call_finished', 'op-1', 'operator', { status: 'ok', durationMs: 3 }),
      entry('call_started', 'a-1', 'agent:bot', { argumentsDigest: 'd1' }),
      entry('call_finished', 'a-1', 'agent:bot', { status: 'ok', durationMs: 5 }),
      entry('approval_requested', 'a-2', 'agent:bot', { argumentsDigest: 'd2' }),
    ];
    let calls = agentCallsOf(entries);
    expect(calls.map((call) => [call.requestId, call.state])).toEqual([
      ['a-2', 'awaiting_approval'],
      ['a-1', 'finished'],
    ]);
    expect(calls[1]).toMatchObject({ argumentsDigest: 'd1', principal: 'agent:bot', finished: { details: { status: 'ok' } } });

    // The operator's decision is the operator's entry; it still belongs to the agent's call.
    const decided = [...entries, entry('approval_decided', 'a-2', 'operator', { decision: 'approved', waitedMs: 900 })];
    calls = agentCallsOf(decided);
    expect(calls[0]).toMatchObject({ requestId: 'a-2', state: 'running', decision: 'approved', waitedMs: 900, argumentsDigest: 'd2' });

    const ended = [...decided, entry('call_started', 'a-2', 'agent:bot'), entry('call_finished', 'a-2', 'agent:bot', { status: 'failed', code: 'DESTINATION_REFUSED' })];
    expect(agentCallsOf(ended)[0]).toMatchObject({ state: 'finished', decision: 'approved', finished: { details: { code: 'DESTINATION_REFUSED' } } });
  });

  it('ignores entries of no request and calls whose start it does not hold', () => {
    const calls = agentCallsOf([entry('task_transition', null, 'agent:bot'), entry('call_finished', 'older', 'agent:bot', { status: 'ok' })]);
    expect(calls).toEqual([]);
  });

  it('names each agent once, sorted', () => {
    const calls = agentCallsOf([entry('call_started', 'x', 'agent:zed'), entry('call_started', 'y', 'agent:amy'), entry('call_started', 'z', 'agent:zed')]);
    expect(agentNames(calls)).toEqual(['agent:amy', 'agent:zed']);
  });
});
