/**
 * The runtime's call path: every capability call, whatever its entry, runs here in a running
 * task (an MCP resource's read and a prompt's get too, needing `read` or `get`). granted `execute`? → may it mutate? → confirmed? → recorded as started → the work under
 * its deadline, abortable by the task's cancellation (call.ts) → recorded as finished. A refusal
 * is recorded, then thrown. One call may also be cancelled alone, its task running on.
 */
import { CapstanError } from '../../shared/errors';
import type { LedgerEntry } from '../../shared/ledger';
import { isAgent, type Principal } from '../../shared/principal';
import type { CallCancellation, CallStatus } from '../../shared/tasks';
import { Call, type CallOutcome, type CallSpec } from './call';
import type { TaskJournal } from './journal';
import { currentPrincipal, runAs } from './principal';
import { isTerminal, notActive, type InFlight, type RunningTask, type Task } from './task';

/** Whose calls a principal may see: all of them for the operator and the gateway, only its own for an agent. */
const agentOrNone = (principal: Principal): Principal | undefined => (isAgent(principal) ? principal : undefined);

export class CallPath {
  constructor(
    private readonly journal: TaskJournal,
    private readonly graceMs: number,
  ) {}

  /** Resolves only once the call's end is durable, so a call a client hears about is a call on record. */
  async run(task: RunningTask, spec: CallSpec, work: (signal: AbortSignal) => unknown): Promise<CallOutcome> {
    const { ledger } = this.journal;
    const { requestId, capability } = spec;
    if (task.calls.has(requestId)) throw new CapstanError('BAD_REQUEST', `requestId "${requestId}" is already running in ${task.id}`).inTask(task.id);
    const { callerGone } = spec;
    try {
      if (callerGone?.aborted) throw callerLeft(callerGone);
      task.grants.require(capability, spec.kind ?? 'tool', spec.authority ?? 'execute');
      if (spec.mutating) this.#assertMayMutate(task);
      if (spec.confirm) {
        const confirmation = await this.#confirmation(task, spec.confirm, callerGone);
        // A confirmation may take minutes (an agent's call waits for the operator): what it
        // was asked under is asked again, so a task that stopped, a grant lowered or a caller
        // that left meanwhile holds.
        if (callerGone?.aborted) throw callerLeft(callerGone);
        task.running();
        task.grants.require(capability, spec.kind ?? 'tool', spec.authority ?? 'execute');
        if (spec.mutating) this.#assertMayMutate(task);
        this.journal.record(task, { kind: 'confirmation', requestId, capability, details: confirmation });
      }
    } catch (error) {
      if (error instanceof CapstanError && !isTerminal(task.state)) this.#refuse(task, requestId, capability, error.code);
      await ledger.durable();
      throw error instanceof CapstanError ? error.inTask(task.id) : error;
    }

    const call = new Call(spec, this.graceMs);
    // Settles once the call's end is recorded (rejects if recording it failed): the cancellation barrier.
    const { promise: recorded, resolve, reject } = Promise.withResolvers<CallOutcome>();
    // In flight from its recorded start, so the task view that announces the start counts it.
    const started = this.journal.record(task, { kind: 'call_started', requestId, capability, details: { mutating: spec.mutating, ...spec.details } }, () =>
      task.calls.set(requestId, { call, principal: currentPrincipal(), recorded }),
    );
    // A mutating call's start is not left for its answer to commit: it commits when this turn ends,
    // as every write did before batches waited for answers, so that recovery is likelier to find it
    // after a crash and mark the call's outcome unknown. (Its work has started by then: an entry
    // durable before the work would cost every mutating call a flush of its own.)
    if (spec.mutating) ledger.commitSoon();
    // A caller that leaves cancels the call in its own name, as the operator's Cancel call would.
    const principal = currentPrincipal();
    const cancel = () => void runAs(principal, () => this.cancel(requestId, reasonOf(callerGone!))).catch(() => undefined);
    callerGone?.addEventListener('abort', cancel, { once: true });
    // After the ledger failed to write (a full disk), no work runs before its start is on disk:
    // a call that cannot be recorded is refused, not run unrecorded.
    if (ledger.unavailable !== undefined) {
      try {
        await ledger.durable(started);
      } catch (error) {
        callerGone?.removeEventListener('abort', cancel);
        task.calls.delete(requestId);
        // Whoever waits for this call's end (a cancellation, its task's barrier) hears it never ran.
        recorded.catch(() => undefined);
        reject(error as Error);
        throw error instanceof CapstanError ? error.inTask(task.id) : error;
      }
    }
    // Cancelled (or its caller gone) while its start was made durable: the work never starts.
    const runs = call.stopping ? () => Promise.reject(new Error('the call was cancelled before it ran')) : work;
    let finished: LedgerEntry | undefined;
    call
      .run(runs)
      .then((outcome) => {
        try {
          finished = this.#finish(task, call, outcome);
        } catch (error) {
          // Its end could not be recorded: it is no longer running all the same.
          task.calls.delete(requestId);
          throw error;
        }
        return outcome;
      })
      .then(resolve, reject);
    const outcome = await recorded.finally(() => callerGone?.removeEventListener('abort', cancel));
    await ledger.durable(started, finished);
    return outcome;
  }

  /**
   * Cancels one running call, not its task: a `cancellation` naming the call is recorded, then the
   * call is told to stop and gets the grace period, as in a task's cancellation (one that does
   * neither ends `outcome_unknown`, and a mutating one then blocks the session's mutations until
   * acknowledged). Resolves with how the call ended once that is on record; the task runs on.
   * Who may cancel it is the gateway's to decide (`running` names who made it).
   */
  async cancel(requestId: string, reason = 'call cancelled by the operator'): Promise<CallCancellation> {
    const { task, inFlight } = this.running(requestId);
    return this.#cancel(task, requestId, inFlight, reason);
  }

  /**
   * Cancels every call still running, as `cancel` does each, and those that start meanwhile; for
   * shutdown. Undefined when none runs.
   */
  cancelAll(reason: string): Promise<void> | undefined {
    const running = () => this.journal.memory.unfinished().flatMap((task) => [...task.calls].map(([requestId, inFlight]) => ({ task, requestId, inFlight })));
    if (running().length === 0) return undefined;
    return (async () => {
      // A call may start while others end (a Harn script's next step); a few rounds take those too.
      for (let round = 0; round < 3; round += 1) {
        const calls = running();
        if (calls.length === 0) return;
        await Promise.allSettled(calls.map(({ task, requestId, inFlight }) => this.#cancel(task, requestId, inFlight, reason)));
      }
    })();
  }

  async #cancel(task: Task, requestId: string, inFlight: InFlight, reason: string): Promise<CallCancellation> {
    const { capability } = inFlight.call.spec;
    // A call already stopping (cancelled, or past its deadline) is waited for, not cancelled twice.
    let cancellation: LedgerEntry | undefined;
    if (!inFlight.call.stopping) {
      cancellation = this.journal.record(task, { kind: 'cancellation', requestId, capability, details: { reason, scope: 'call' } });
      inFlight.call.abort('cancelled', 'call');
    }
    const outcome = await inFlight.recorded;
    await this.journal.ledger.durable(cancellation);
    return { requestId, taskId: task.id, capability, status: outcome.status, durationMs: outcome.durationMs };
  }

  /**
   * The call running under `requestId`, its task and who made it; CALL_NOT_RUNNING when it already
   * ended, else CALL_NOT_FOUND. `visibleTo` (by default the current principal when it is an agent)
   * sees only calls it made itself: another principal's call, running or ended, is CALL_NOT_FOUND
   * exactly as an unknown requestId is, so an agent learns nothing of others' calls.
   */
  running(requestId: string, visibleTo: Principal | undefined = agentOrNone(currentPrincipal())): { task: Task; inFlight: InFlight } {
    for (const task of this.journal.memory.unfinished()) {
      const inFlight = task.calls.get(requestId);
      if (inFlight && (visibleTo === undefined || inFlight.principal === visibleTo)) return { task, inFlight };
    }
    const { ledger } = this.journal;
    const finished = ledger.query({ requestId, kind: 'call_finished', limit: 1000 });
    // Whose call it was is read off its recorded start, before anything about how it ended is told.
    const own = visibleTo === undefined ? undefined : new Set(ledger.query({ requestId, kind: 'call_started', principal: visibleTo, limit: 1000 }).map((entry) => entry.taskId));
    const ended = own === undefined ? finished.at(-1) : finished.findLast((entry) => entry.principal === visibleTo && own.has(entry.taskId));
    if (ended) {
      throw new CapstanError('CALL_NOT_RUNNING', `call "${requestId}" already ended (${String(ended.details.status)}); there is nothing to cancel`, {
        callStatus: ended.details.status,
      });
    }
    throw new CapstanError('CALL_NOT_FOUND', `no call "${requestId}" is running`);
  }

  /**
   * Asks for the call's confirmation with a signal that aborts as soon as the task leaves
   * `running`: a call waiting for a person ends with its task (refused and recorded in the
   * task's last moments, before its barrier commits), and nothing is left waiting after it.
   */
  async #confirmation(task: Task, confirm: NonNullable<CallSpec['confirm']>, callerGone: AbortSignal | undefined): Promise<Record<string, unknown>> {
    const stopped = new AbortController();
    const stop = this.journal.onChange((view) => {
      if (view.id === task.id && view.state !== 'running') stopped.abort(notActive(task));
    });
    try {
      return await confirm(callerGone ? AbortSignal.any([stopped.signal, callerGone]) : stopped.signal);
    } finally {
      stop();
    }
  }

  #finish(task: Task, call: Call, outcome: CallOutcome): LedgerEntry {
    const { requestId, capability, mutating } = call.spec;
    const { ledger, memory } = this.journal;
    const session = this.journal.session(task.sessionId);
    const evidence = outcome.status === 'ok' ? { resultDigest: ledger.digestJson(outcome.resultJson) } : { code: outcome.error.code };
    return this.journal.record(task, { kind: 'call_finished', requestId, capability, details: { status: outcome.status, durationMs: outcome.durationMs, ...evidence } }, () => {
      task.calls.delete(requestId);
      task.counts[outcome.status] += 1;
      if (outcome.status === 'outcome_unknown' && mutating) memory.setUnknownOutcome(session, { requestId, taskId: task.id, capability, at: new Date().toISOString() });
    });
  }

  /**
   * A call that did not start, both ends on record: refused (grant, mutation gate, a denied or
   * expired approval...), or answered with a confirmation challenge (CONFIRMATION_REQUIRED, the
   * HTTP round trip), which is no refusal: the same call comes back confirmed and runs, so it is
   * counted apart, as a confirmation request.
   */
  #refuse(task: Task, requestId: string, capability: string, code: string): void {
    const status: CallStatus = code === 'CONFIRMATION_REQUIRED' ? 'confirmation_requested' : 'refused';
    const started = status === 'refused' ? { refused: true } : { confirmationRequested: true };
    this.journal.record(task, { kind: 'call_started', requestId, capability, details: started });
    this.journal.record(task, { kind: 'call_finished', requestId, capability, details: { status, code, durationMs: 0 } }, () => {
      task.counts[status] += 1;
    });
  }

  /** Refuses a new mutating call while a mutating call of the session has an unknown outcome. */
  #assertMayMutate(task: Task): void {
    const [first] = this.journal.session(task.sessionId).unknownOutcomes.values();
    if (first) {
      throw new CapstanError('MUTATION_BLOCKED', `the outcome of ${first.capability} (${first.requestId}) is unknown; acknowledge it before running another mutating call`, {
        blockedBy: first.requestId,
      });
    }
  }
}

const reasonOf = (signal: AbortSignal): string => (typeof signal.reason === 'string' ? signal.reason : 'the caller went away');

/** A call whose caller left before it started: it does not start. */
const callerLeft = (signal: AbortSignal) => new CapstanError('CALL_CANCELLED', `${reasonOf(signal)}; the call did not run`);
