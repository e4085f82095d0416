/**
 * One capability call in flight: the work under a deadline, abortable by cancellation, and the
 * grace period after an abort before its outcome is declared unknown. The first decision wins.
 */
import type { Authority, CapabilityKind } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';
import { canonicalJson } from '../catalog/digest';
import { OutcomeUnknownError, ToolArgumentError } from '../catalog/tool';

/** What a call needs from its entry (HTTP, IPC, MCP, Harn): everything else is the runtime's. */
export interface CallSpec {
  requestId: string;
  /** The capability id, as the ledger names it. */
  capability: string;
  /**
   * What the capability is and the authority the call needs: a tool's `execute` when absent; an
   * MCP resource's `read` or a prompt's `get` (services/resources.ts) go the same way.
   */
  kind?: CapabilityKind | undefined;
  authority?: Authority | undefined;
  mutating: boolean;
  timeoutMs: number;
  /** Evidence `call_started` records besides (digests, the reference the call ran under); never raw data. */
  details?: Record<string, unknown>;
  /**
   * For a call that needs the operator's confirmation: throws to refuse (the refusal is
   * recorded), or resolves with the facts of the confirmation, which are recorded before the call runs.
   * `stopped` aborts when the task stops running, so a wait for the operator ends with it.
   */
  confirm?: (stopped: AbortSignal) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /**
   * Aborts when the caller cancels the call or goes away before its answer: a wait for the
   * operator is withdrawn, and a call that started is cancelled as the operator's Cancel call is
   * (recorded, the grace period, `outcome_unknown` for one that does not stop).
   */
  callerGone?: AbortSignal | undefined;
}

/**
 * How a call ended. `result` is the JSON value a client receives and the ledger's digest covers;
 * every other outcome carries the error a client sees.
 */
export type CallOutcome =
  | {
      status: 'ok';
      result: unknown;
      /** `result`'s canonical JSON (RFC 8785), made once: the text the ledger's digest is taken over. */
      resultJson: string;
      durationMs: number;
    }
  | { status: 'error' | 'cancelled' | 'outcome_unknown'; error: CapstanError; durationMs: number };

type Decision =
  | { status: 'ok'; result: unknown }
  | { status: 'error'; error: unknown; timedOut: boolean }
  | { status: 'cancelled' }
  | { status: 'outcome_unknown'; reason?: string };

export class Call {
  readonly #controller = new AbortController();
  readonly #started = performance.now();
  #decide!: (decision: Decision) => void;
  readonly #decided = new Promise<Decision>((resolve) => (this.#decide = resolve));
  #settled = false;
  #abortReason: 'cancelled' | 'deadline' | undefined;
  /** Whether a cancellation stopped this call alone (POST /calls/<requestId>/cancel) rather than its whole task. */
  #cancelledAlone = false;
  /** When it started and when its deadline falls, on the wall clock, for the task view. */
  readonly startedAt = new Date();
  readonly deadlineAt: Date;
  #graceTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly spec: CallSpec,
    private readonly graceMs: number,
  ) {
    this.deadlineAt = new Date(this.startedAt.getTime() + spec.timeoutMs);
  }

  get requestId(): string {
    return this.spec.requestId;
  }

  /**
   * Runs the work under the spec's deadline. After an abort (cancellation or deadline) the work
   * has the grace period to end; if it does not, the outcome is unknown and the caller is answered.
   */
  async run(work: (signal: AbortSignal) => unknown): Promise<CallOutcome> {
    const deadline = setTimeout(() => this.abort('deadline'), this.spec.timeoutMs);
    // Started synchronously, so a cancellation that follows at once finds the work listening.
    let working: Promise<unknown>;
    try {
      working = Promise.resolve(work(this.#controller.signal));
    } catch (error) {
      working = Promise.reject(error);
    }
    working
      .then(
        (result) => this.#settle({ status: 'ok', result }),
        (error: unknown) =>
          this.#settle(
            // The work itself may know it lost track of the call (its server's connection dropped).
            error instanceof OutcomeUnknownError
              ? { status: 'outcome_unknown', reason: error.message }
              : this.#abortReason === 'cancelled'
                ? { status: 'cancelled' }
                : { status: 'error', error, timedOut: this.#abortReason === 'deadline' },
          ),
      )
      .finally(() => clearTimeout(deadline));
    return this.#outcome(await this.#decided);
  }

  /** Whether it has been told to stop (cancelled, or past its deadline) and is in its grace period or done. */
  get stopping(): boolean {
    return this.#abortReason !== undefined;
  }

  /** `scope` says what was cancelled: the call's task (the default) or the call alone. */
  abort(reason: 'cancelled' | 'deadline', scope: 'task' | 'call' = 'task'): void {
    if (this.#settled || this.#abortReason) return;
    this.#abortReason = reason;
    this.#cancelledAlone = reason === 'cancelled' && scope === 'call';
    this.#controller.abort(new Error(reason === 'deadline' ? 'the call ran past its deadline' : this.#cancelledAlone ? 'the call was cancelled' : 'the task was cancelled'));
    this.#graceTimer = setTimeout(() => this.#settle({ status: 'outcome_unknown' }), this.graceMs);
  }

  #settle(decision: Decision): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#graceTimer);
    this.#decide(decision);
  }

  #outcome(decision: Decision): CallOutcome {
    // To a hundredth of a millisecond (fast builtins take well under one), for the caller and the ledger alike, so a call's card and its entry agree.
    const durationMs = Math.round((performance.now() - this.#started) * 100) / 100;
    const tool = this.spec.capability;
    switch (decision.status) {
      case 'ok':
        try {
          const { result, json } = asJson(decision.result);
          return { status: 'ok', result, resultJson: json, durationMs };
        } catch (error) {
          // A BigInt or a cycle: the client could not receive it, so the call failed.
          return { status: 'error', error: new CapstanError('TOOL_FAILED', `${tool} returned a value that is not JSON (${(error as Error).message})`), durationMs };
        }
      case 'cancelled':
        return {
          status: 'cancelled',
          error: new CapstanError('CALL_CANCELLED', `${tool} stopped because ${this.#cancelledAlone ? 'the call' : 'its task'} was cancelled`),
          durationMs,
        };
      case 'outcome_unknown':
        return {
          status: 'outcome_unknown',
          error: new CapstanError('OUTCOME_UNKNOWN', `${tool} ${decision.reason ?? 'did not end within the grace period after it was stopped'}; its effects are unknown`),
          durationMs,
        };
      case 'error':
        return { status: 'error', error: toolFailure(decision.error, decision.timedOut, tool), durationMs };
    }
  }
}

/**
 * What the client receives is what the digest covers: the result as JSON. One serialization
 * serves both, the canonical one: the digest is taken over its text, and the value the client
 * receives is parsed back from it (so its keys come sorted), where the result used to be
 * serialized three times (a JSON round trip, then canonical JSON again for the digest). A result
 * that canonical JSON refuses but JSON takes (NaN or Infinity, which JSON makes null) goes
 * through JSON first; a BigInt or a cycle still throws.
 */
function asJson(value: unknown): { result: unknown; json: string } {
  let json: string;
  try {
    json = canonicalJson(value ?? null);
  } catch {
    json = canonicalJson(JSON.parse(JSON.stringify(value ?? null)));
  }
  return { result: JSON.parse(json), json };
}

/** The error a client sees for work that threw or ran past its deadline. */
function toolFailure(error: unknown, timedOut: boolean, tool: string): CapstanError {
  if (error instanceof CapstanError) return error;
  if (error instanceof ToolArgumentError) return new CapstanError('ARGUMENT_INVALID', `${error.field} ${error.message}`, { field: error.field });
  if (timedOut) return new CapstanError('TOOL_FAILED', `${tool} did not finish within its deadline`);
  return new CapstanError('TOOL_FAILED', `${tool}: ${error instanceof Error ? error.message : String(error)}`);
}
