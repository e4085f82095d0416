/**
 * After a restart: every task the last process left unfinished is closed as failed, each call it
 * started without an end gets one with an unknown outcome, and a mutating one arms its session's
 * mutation gate until the operator acknowledges it; an approval it left waiting for the operator
 * is closed as expired, and a server's question (an elicitation, a sampling request) it left
 * unanswered as withdrawn, so no call waits for a decision nobody can take. All of it recorded,
 * in the gateway's name.
 */
import type { LedgerEntry, LedgerKind } from '../../shared/ledger';
import { SYSTEM } from '../../shared/principal';
import type { TaskJournal } from './journal';
import type { Ledger } from './ledger';
import { runAs } from './principal';
import { isTerminal, type Session, type Task } from './task';

const RESTARTED = 'gateway restarted';

export async function recoverAfterRestart(journal: TaskJournal): Promise<void> {
  // Nobody asked for this: its entries name the gateway itself.
  runAs(SYSTEM, () => {
    for (const sessionId of journal.store.sessionsWithUnfinishedTasks()) {
      const session = journal.session(sessionId);
      for (const task of session.tasks.filter((t) => !isTerminal(t.state))) closeAfterRestart(journal, task, session);
      session.trim();
    }
  });
  await journal.ledger.durable();
}

/** Ends a task the last process left unfinished: the only move outside the state machine. */
function closeAfterRestart(journal: TaskJournal, task: Task, session: Session): void {
  // A call waiting for approval waits in its (running) task: the request without a decision is closed.
  for (const requested of undecidedApprovals(journal.ledger, task.id)) {
    closeOpened(journal, task, requested, 'approval_decided', { approvalId: requested.details.approvalId, decision: 'expired', agent: requested.details.agent ?? requested.principal, reason: RESTARTED });
  }
  // A server's question asked during one of its calls: the server that asked is gone with the process.
  for (const asked of unansweredAsks(journal.ledger, task.id)) {
    closeOpened(journal, task, asked, 'server_answered', { askId: asked.details.askId, server: asked.details.server, ask: asked.details.ask, answer: 'withdrawn', reason: RESTARTED });
  }
  for (const started of unendedCalls(journal.ledger, task.id)) {
    const requestId = started.requestId!;
    const capability = started.capability ?? 'unknown';
    journal.record(task, { kind: 'call_finished', requestId, capability, details: { status: 'outcome_unknown', code: 'OUTCOME_UNKNOWN', reason: RESTARTED } }, () => {
      task.counts.outcome_unknown += 1;
      if (started.details.mutating === true) journal.memory.setUnknownOutcome(session, { requestId, taskId: task.id, capability, at: new Date().toISOString() });
    });
  }
  journal.record(task, { kind: 'task_transition', details: { from: task.state, to: 'failed', reason: RESTARTED } }, (seq) => task.moved(seq, 'failed'));
  journal.memory.remember(task);
}

/** Records, in the gateway's name, the end of what `opened` began and the restart left open. */
function closeOpened(journal: TaskJournal, task: Task, opened: LedgerEntry, kind: LedgerKind, details: Record<string, unknown>): void {
  journal.ledger.append({ kind, taskId: task.id, sessionId: opened.sessionId ?? task.sessionId, requestId: opened.requestId, capability: opened.capability, details, principal: SYSTEM });
}

/** Every entry of one kind in a task, oldest first. */
function allOfKind(ledger: Ledger, taskId: string, kind: LedgerKind): LedgerEntry[] {
  const entries: LedgerEntry[] = [];
  for (let page = ledger.query({ taskId, kind, limit: 1000 }); page.length > 0; page = ledger.query({ taskId, kind, after: page.at(-1)!.seq, limit: 1000 })) {
    entries.push(...page);
  }
  return entries;
}

/** The calls a task started that have no recorded end. */
export function unendedCalls(ledger: Ledger, taskId: string): LedgerEntry[] {
  const ended = new Set(allOfKind(ledger, taskId, 'call_finished').map((entry) => entry.requestId));
  return allOfKind(ledger, taskId, 'call_started').filter((entry) => !ended.has(entry.requestId));
}

/** The questions servers asked during a task's calls that have no recorded end (answered, declined, expired or withdrawn). */
export function unansweredAsks(ledger: Ledger, taskId: string): LedgerEntry[] {
  const ended = new Set(allOfKind(ledger, taskId, 'server_answered').map((entry) => entry.details.askId));
  return allOfKind(ledger, taskId, 'server_asked').filter((entry) => !ended.has(entry.details.askId));
}

/** The approvals a task asked for that have no recorded decision (approved, denied, expired or withdrawn). */
export function undecidedApprovals(ledger: Ledger, taskId: string): LedgerEntry[] {
  const decided = new Set(allOfKind(ledger, taskId, 'approval_decided').map((entry) => entry.details.approvalId));
  return allOfKind(ledger, taskId, 'approval_requested').filter((entry) => !decided.has(entry.details.approvalId));
}
