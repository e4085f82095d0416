/**
 * Agents' calls, read off the live ledger the console holds (features/ledger/ledgerFeed.ts):
 * one row per requestId an agent started, from its first entry (an approval request or the
 * call's start) to its `call_finished`. The ledger is the only source, so the view shows what
 * the ledger keeps (digests, never arguments or results) and agrees with it by construction.
 */
import type { LedgerEntry } from '../../../shared/ledger';
import { isAgent } from '../../../shared/principal';

export type AgentCallState = 'awaiting_approval' | 'running' | 'finished';

export interface AgentCall {
  requestId: string;
  /** The principal, `agent:<name>`. */
  principal: string;
  capability: string | null;
  taskId: string | null;
  /** The call's first entry: where its row sorts, and when it began. */
  firstSeq: number;
  startedAt: string;
  state: AgentCallState;
  /** The operator's decision, when the call waited for one: approved, denied, expired, withdrawn. */
  decision: string | null;
  waitedMs: number | null;
  argumentsDigest: string | null;
  finished: LedgerEntry | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Per held list of entries, its agents' calls, newest first: built once per batch, shared by every reader. */
const derived = new WeakMap<readonly LedgerEntry[], AgentCall[]>();

export function agentCallsOf(entries: readonly LedgerEntry[]): AgentCall[] {
  const known = derived.get(entries);
  if (known) return known;
  const calls = new Map<string, AgentCall>();
  for (const entry of entries) {
    const { requestId } = entry;
    if (!requestId) continue;
    let call = calls.get(requestId);
    // A call is an agent's when its first entry is: the decision on it is the operator's own entry.
    if (!call) {
      if (!(entry.principal && isAgent(entry.principal)) || (entry.kind !== 'approval_requested' && entry.kind !== 'call_started')) continue;
      call = {
        requestId,
        principal: entry.principal,
        capability: entry.capability,
        taskId: entry.taskId,
        firstSeq: entry.seq,
        startedAt: entry.at,
        state: entry.kind === 'approval_requested' ? 'awaiting_approval' : 'running',
        decision: null,
        waitedMs: null,
        argumentsDigest: null,
        finished: null,
      };
      calls.set(requestId, call);
    }
    call.argumentsDigest ??= text(entry.details.argumentsDigest);
    switch (entry.kind) {
      case 'approval_decided':
        call.decision = text(entry.details.decision);
        call.waitedMs = typeof entry.details.waitedMs === 'number' ? entry.details.waitedMs : null;
        // Approved, it runs next; any other decision is followed by the call's refusal.
        if (call.state === 'awaiting_approval') call.state = 'running';
        break;
      case 'call_started':
        if (call.state === 'awaiting_approval') call.state = 'running';
        break;
      case 'call_finished':
        call.state = 'finished';
        call.finished = entry;
        break;
    }
  }
  const list = [...calls.values()].sort((a, b) => b.firstSeq - a.firstSeq);
  derived.set(entries, list);
  return list;
}

/** The agents' names among the calls, for the view's filter. */
export const agentNames = (calls: readonly AgentCall[]): string[] => [...new Set(calls.map((call) => call.principal))].sort();
