/**
 * The approvals queue: an agent never confirms its own call. A call from an agent to a tool that
 * needs confirmation waits here (its `spec.confirm`) until the operator approves or denies it,
 * until it expires, or until its task stops running. Approval resolves with the facts the runtime
 * records as the call's confirmation, so the call then runs once, with the arguments shown; every
 * other end throws, and the runtime records the refusal.
 *
 * Each request and each end (decision, expiry, withdrawal) is a ledger entry, written before the
 * change it records, and each change is published so consoles see the queue live. The queue
 * itself lives in memory: a waiting call is an open request, which a restart ends anyway (the
 * restart recovery records the approval expired, "gateway restarted", and closes its task as failed).
 */
import { randomUUID } from 'node:crypto';
import type { ApprovalDecisionInput, ApprovalStatus, ApprovalsView, ApprovalView, CallReview } from '../../shared/approvals';
import { CapstanError } from '../../shared/errors';
import { isAgent, SYSTEM, type Principal } from '../../shared/principal';
import { sha256Hex } from '../catalog/digest';
import type { Ledger } from '../runtime/ledger';
import { assertWithinQuota, type AgentQuotas } from './quotas';

/** How often a waiting call's entry hears that it still waits (MCP progress keeps the agent's request alive). */
export const APPROVAL_PROGRESS_MS = 5_000;
/**
 * Each pending approval is an open request and a row on the operator's screen: a flood is
 * refused, not queued. Each agent has its own quota (config.json `quotas.pendingApprovals`), so
 * one agent cannot fill the queue for others; this bounds them all together.
 */
export const MAX_PENDING_APPROVALS = 1000;
/** Ended approvals kept for `GET /approvals`; the ledger keeps them all. */
export const RECENT_APPROVALS = 50;
const TASK_STOPPED = 'its task stopped running';

/** What a waiting call's entry is told, at once and every APPROVAL_PROGRESS_MS until it ends. */
export interface ApprovalWait {
  approvalId: string;
  requestId: string;
  waitedMs: number;
  timeoutMs: number;
  expiresAt: string;
  message: string;
}

export interface WaitOptions {
  /**
   * Aborted when the call's task stops running (cancelled, superseded, finishing) or its caller
   * cancels or goes away (a string reason says which): the approval is withdrawn.
   */
  signal?: AbortSignal | undefined;
  onWaiting?: ((wait: ApprovalWait) => void) | undefined;
}

export interface ApprovalsOptions {
  ledger: Pick<Ledger, 'append' | 'digest'>;
  timeoutMs: number;
  /** Every change of an approval, for the event bus. */
  publish(view: ApprovalView): void;
  progressMs?: number;
  now?: () => number;
  /** Each agent's quota of calls waiting for approval; without it, only the overall bound holds. */
  quotas?: AgentQuotas | undefined;
}

interface Pending {
  view: ApprovalView;
  requestedAtMs: number;
  settle(view: ApprovalView): void;
  fail(error: unknown): void;
  stop(): void;
}

export class Approvals {
  readonly #pending = new Map<string, Pending>();
  #recent: ApprovalView[] = [];
  readonly #now: () => number;

  constructor(private readonly options: ApprovalsOptions) {
    this.#now = options.now ?? Date.now;
  }

  /**
   * Waits for the operator. Resolves with the confirmation facts once approved; throws
   * CONFIRMATION_DENIED, CONFIRMATION_EXPIRED, or CALL_CANCELLED when the task stopped.
   */
  async wait(request: CallReview, { signal, onWaiting }: WaitOptions = {}): Promise<Record<string, unknown>> {
    if (signal?.aborted) throw withdrawn(request.tool.name, typeof signal.reason === 'string' ? signal.reason : TASK_STOPPED);
    if (this.options.quotas) {
      let held = 0;
      for (const { view } of this.#pending.values()) if (view.principal === request.principal) held += 1;
      assertWithinQuota(this.options.quotas, request.principal as Principal, 'pendingApprovals', held);
    }
    if (this.#pending.size >= MAX_PENDING_APPROVALS) {
      throw new CapstanError('LIMIT_REACHED', `${MAX_PENDING_APPROVALS} approvals already wait for the operator; try again once some are decided`, {
        what: 'pending approvals',
        limit: MAX_PENDING_APPROVALS,
      });
    }
    const { timeoutMs, progressMs = APPROVAL_PROGRESS_MS } = this.options;
    const id = `approval-${randomUUID()}`;
    const requestedAtMs = this.#now();
    const expiresAt = new Date(requestedAtMs + timeoutMs).toISOString();
    const evidence = this.options.ledger.digest(request.arguments);
    this.options.ledger.append({
      kind: 'approval_requested',
      taskId: request.taskId,
      sessionId: request.sessionId,
      requestId: request.requestId,
      capability: request.tool.id,
      details: { approvalId: id, agent: request.principal, argumentsDigest: evidence, expiresAt },
    });
    const view: ApprovalView = {
      id,
      requestId: request.requestId,
      principal: request.principal,
      sessionId: request.sessionId,
      taskId: request.taskId,
      tool: request.tool,
      arguments: request.arguments,
      argumentsDigest: sha256Hex(request.arguments),
      status: 'pending',
      requestedAt: new Date(requestedAtMs).toISOString(),
      expiresAt,
      ageMs: 0,
      decidedAt: null,
      note: null,
      reason: null,
    };
    return new Promise((resolve, reject) => {
      const tell = () => {
        const waitedMs = this.#now() - requestedAtMs;
        const left = Math.max(0, Math.ceil((timeoutMs - waitedMs) / 1000));
        const message = `waiting for the operator to approve ${request.tool.name} (${id}); ${left} s left`;
        try {
          onWaiting?.({ approvalId: id, requestId: request.requestId, waitedMs, timeoutMs, expiresAt, message });
        } catch {
          // A client that cannot be told (its connection broke) still gets its answer, or none.
        }
      };
      const expiry = setTimeout(() => this.#endQuietly(id, 'expired', { reason: `no decision within ${Math.round(timeoutMs / 1000)} s` }), timeoutMs);
      const ticker = onWaiting ? setInterval(tell, progressMs) : undefined;
      // Its task stopped running, or its caller cancelled or went away: nobody waits for it any more.
      // A string reason is the caller's own (it cancelled, or went away): the withdrawal is recorded as
      // the agent's. Otherwise its task stopped, in the name of whoever stopped it.
      const withdraw = () =>
        this.#endQuietly(id, 'withdrawn', typeof signal?.reason === 'string' && isAgent(view.principal) ? { reason: signal.reason, by: view.principal } : { reason: TASK_STOPPED });
      signal?.addEventListener('abort', withdraw, { once: true });
      this.#pending.set(id, {
        view,
        requestedAtMs,
        settle: (ended) => {
          if (ended.status === 'approved') resolve({ approvalId: id, argumentsDigest: evidence, waitedMs: this.#now() - requestedAtMs });
          else reject(endedError(ended));
        },
        fail: reject,
        stop: () => {
          clearTimeout(expiry);
          clearInterval(ticker);
          signal?.removeEventListener('abort', withdraw);
        },
      });
      this.options.publish(view);
      if (onWaiting) tell();
    });
  }

  /** The operator's decision (operator only: an agent never approves). */
  decide({ id, decision, note, argumentsDigest }: ApprovalDecisionInput): ApprovalView {
    const pending = this.#pending.get(id);
    if (!pending) {
      const ended = this.#recent.find((view) => view.id === id);
      if (ended) throw new CapstanError('APPROVAL_NOT_PENDING', `${id} was already ${ended.status}`, { status: ended.status });
      throw new CapstanError('APPROVAL_NOT_FOUND', `no approval "${id}" is pending or recent`);
    }
    if (argumentsDigest !== undefined && argumentsDigest !== pending.view.argumentsDigest) {
      throw new CapstanError('BAD_REQUEST', `${id} is for other arguments than the ones reviewed (argumentsDigest differs); review it again`);
    }
    return this.#end(id, decision === 'approve' ? 'approved' : 'denied', { note: note?.trim() || null })!;
  }

  /** Pending approvals oldest first, then the recent ends newest first. */
  list(): ApprovalsView {
    const now = this.#now();
    const pending = [...this.#pending.values()].map(({ view, requestedAtMs }) => ({ ...view, ageMs: Math.max(0, now - requestedAtMs) }));
    return { pending, recent: [...this.#recent], timeoutMs: this.options.timeoutMs };
  }

  /**
   * Withdraws every pending approval of one principal, each recorded with the reason (an agent
   * whose token was revoked: nobody may approve a call it made while it still held one). The
   * waiting calls end CALL_CANCELLED without running. Returns how many were withdrawn.
   */
  withdrawAll(principal: string, reason: string): number {
    const ids = [...this.#pending].filter(([, pending]) => pending.view.principal === principal).map(([id]) => id);
    for (const id of ids) this.#endQuietly(id, 'withdrawn', { reason });
    return ids.length;
  }

  /** Withdraws every pending approval; for shutdown, while the ledger can still record it. */
  close(): void {
    for (const id of [...this.#pending.keys()]) this.#endQuietly(id, 'withdrawn', { reason: 'the gateway stopped' });
  }

  /** Records the end, then applies it: a failed write leaves the approval pending. */
  #end(id: string, status: Exclude<ApprovalStatus, 'pending'>, { note = null, reason = null, by }: { note?: string | null; reason?: string | null; by?: Principal }): ApprovalView | undefined {
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    const now = this.#now();
    const { view } = pending;
    this.options.ledger.append({
      kind: 'approval_decided',
      taskId: view.taskId,
      sessionId: view.sessionId,
      requestId: view.requestId,
      capability: view.tool.id,
      details: {
        approvalId: id,
        decision: status,
        agent: view.principal,
        waitedMs: now - pending.requestedAtMs,
        ...(note ? { noteDigest: this.options.ledger.digest(note) } : {}),
        ...(reason ? { reason } : {}),
      },
      // Nobody decided an expiry: the gateway records it by itself.
      ...(status === 'expired' ? { principal: SYSTEM } : by ? { principal: by } : {}),
    });
    this.#pending.delete(id);
    pending.stop();
    const ended: ApprovalView = { ...view, status, ageMs: now - pending.requestedAtMs, decidedAt: new Date(now).toISOString(), note, reason };
    this.#recent = [ended, ...this.#recent].slice(0, RECENT_APPROVALS);
    this.options.publish(ended);
    pending.settle(ended);
    return ended;
  }

  /** For ends no request waits on (a timer, an abort): a failure to record still ends the wait, never throws into a timer. */
  #endQuietly(id: string, status: 'expired' | 'withdrawn', facts: { reason: string; by?: Principal }): void {
    try {
      this.#end(id, status, facts);
    } catch (error) {
      const pending = this.#pending.get(id);
      this.#pending.delete(id);
      pending?.stop();
      pending?.fail(error);
    }
  }
}

const withdrawn = (tool: string, reason: string, details: Record<string, unknown> = {}) =>
  new CapstanError('CALL_CANCELLED', `the call to ${tool} was withdrawn from approval (${reason}); it did not run`, details);

/** What the waiting agent is told of an end other than approval. */
function endedError({ id, status, tool, note, reason }: ApprovalView): CapstanError {
  const details = { approvalId: id };
  switch (status) {
    case 'denied':
      return new CapstanError('CONFIRMATION_DENIED', `the operator denied this call to ${tool.name}${note ? `: ${note}` : ''}`, note ? { ...details, note } : details);
    case 'expired':
      return new CapstanError('CONFIRMATION_EXPIRED', `nobody approved this call to ${tool.name} in time; it did not run`, details);
    default:
      return withdrawn(tool.name, reason ?? 'withdrawn', details);
  }
}
