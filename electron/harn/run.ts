/**
 * One Harn run: a Capstan task whose work is a Harn script. Capstan starts the child, shakes
 * hands (`initialize`, `session/new`), sends the prompt, answers the script's bridge requests
 * (bridge.ts) until the prompt ends, then closes the child and ends the task:
 *
 * - `succeeded` when the prompt's answer is a result that carries no `_meta.harn.terminal`
 *   (v0.7.50 answers every success `{ stopReason: "completed" }`, newer builds `end_turn` for a
 *   pipeline that ran no `agent_loop`), or one whose terminal kind is "natural";
 * - `failed`, with the reason, for anything else: another terminal kind, a stopReason "cancelled"
 *   Capstan did not ask for, an error answer (-32000; newer builds add
 *   `data: { schema: "harn.acp.prompt_error.v1", terminalClass }`), the child exiting before the
 *   prompt ends, a protocol error, the run's deadline (harn.timeoutMs);
 * - cancelled or superseded by the runtime: cancel, supersede and finish stop the run through
 *   the task's work hook (`session/cancel`, then the grace period, then the child is killed), and
 *   the runtime ends the task once the child is gone and every call has ended.
 */
import { basename, dirname } from 'node:path';
import { CapstanError } from '../../shared/errors';
import type { HarnConfig, HarnRunSummary, HarnRunView } from '../../shared/harn';
import { agentPrincipal, type Principal } from '../../shared/principal';
import type { TaskState } from '../../shared/tasks';
import { runAs } from '../runtime/principal';
import type { TaskWork } from '../runtime/runtime';
import { bridgeHandlers, type BridgeParts } from './bridge';
import { MAX_UNREAD_INPUT_BYTES, startChild, type HarnChild } from './child';
import { RpcCode, RpcError, RpcPeer } from './rpc';
import { UpdateLog, type UpdateBatch } from './updates';
import type { RunTrace } from './runTrace';

/** How long `initialize` and `session/new` may take. */
export const HANDSHAKE_TIMEOUT_MS = 30_000;
const ACP_PROTOCOL_VERSION = 1;
/** How long Capstan waits for Harn to answer `session/inject`. */
const STEER_TIMEOUT_MS = 30_000;

export interface RunParts extends BridgeParts {
  config: HarnConfig;
  /** How long Harn has to end its prompt after `session/cancel`, and to exit after its stdin closes. */
  graceMs: number;
  /** The run's summary and new lines, for the event bus. */
  publish(summary: HarnRunSummary, batch: UpdateBatch): void;
}

type Fields = Record<string, unknown>;
const fields = (value: unknown): Fields => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {});

/** The agent a script runs as: `agent:harn.<script name>`. */
export function scriptPrincipal(script: string): Principal {
  const name = basename(script).replace(/\.harn$/, '').replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100) || 'script';
  return agentPrincipal(`harn.${name}`);
}

export class HarnRun implements TaskWork {
  readonly log: UpdateLog;
  readonly startedAt = new Date().toISOString();
  #state: HarnRunSummary['state'] = 'starting';
  #outcome: HarnRunSummary['outcome'] = null;
  #endedAt: string | null = null;
  #agent: HarnRunSummary['agent'] = null;
  /**
   * How a steer reaches Harn: newer builds take `session/inject` as a request; v0.7.50 answers it
   * -32601 and takes a `session/input` notification, which the run then uses for every steer.
   */
  #steerRoute: 'inject' | 'input' | 'refused' = 'inject';
  #ending: NonNullable<HarnRunSummary['ending']> | null = null;
  #childGone = false;
  #harnSession: string | undefined;
  /** The sessions Harn may address this run under: its own and its sub-agents'. */
  readonly #sessions = new Set<string>();
  #child: HarnChild | undefined;
  #peer: RpcPeer | undefined;
  readonly #stopping = new AbortController();
  /** Set when the runtime (or the gateway's shutdown) stopped the run: the run does not end the task then. */
  #stoppedByTask = false;
  /** Why the run is being stopped from inside (its deadline, a protocol error). */
  #failure: string | undefined;
  #done: Promise<void> = Promise.resolve();
  #detach: () => void = () => {};
  readonly #principal: Principal;

  constructor(
    private readonly parts: RunParts,
    readonly taskId: string,
    readonly sessionId: string,
    readonly script: string,
    readonly prompt: string | null,
    /** The run's span (runTrace.ts): its context goes to the child and to the script's calls. */
    private readonly runTrace?: RunTrace,
  ) {
    this.log = new UpdateLog((batch) => parts.publish(this.summary(), batch));
    this.#principal = scriptPrincipal(script);
  }

  /** Starts the child and hands the run to the task; throws HARN_UNAVAILABLE when it cannot start. */
  async start(): Promise<void> {
    const principal = this.#principal;
    const handlers = bridgeHandlers(this.parts, {
      taskId: this.taskId,
      script: this.script,
      principal,
      harnSession: () => this.#harnSession,
      sessions: this.#sessions,
      log: this.log,
      permissionTimeoutMs: this.parts.config.permissionTimeoutMs,
      stopped: this.#stopping.signal,
      trace: this.runTrace?.context,
      call: (method, params, timeoutMs) => (this.#peer ? this.#peer.request(method, params, timeoutMs) : Promise.reject(new Error('Harn is not running'))),
    });
    const child = await startChild(
      this.parts.config,
      this.script,
      {
        line: (line) => this.#peer?.receive(line),
        stderr: (line) => this.log.add('stderr', line),
        tooLong: () => this.#protocolError('Harn wrote a line over 8 MiB'),
        notReading: () => {
          this.#protocolError(`Harn does not read its input: over ${MAX_UNREAD_INPUT_BYTES / 1024 / 1024} MiB of Capstan's messages wait unread in its stdin`);
          // session/cancel would join the unread pile: no grace period to wait out.
          void this.#child?.kill();
        },
      },
      this.runTrace?.environment,
    );
    this.#child = child;
    this.#peer = new RpcPeer(child.write, { ...handlers, problem: (text) => this.log.add('protocol', `Harn sent ${text}; answered with a JSON-RPC error or ignored`) });
    this.log.add('status', `started ${this.parts.config.command} (pid ${child.pid ?? '?'}) as ${principal}`);
    try {
      // The task may have been cancelled while the child started: then it goes at once.
      this.#detach = this.parts.tasks.attachWork(this.taskId, this);
    } catch (error) {
      void child.kill();
      throw error;
    }
    this.#done = this.#drive(child, this.#peer);
  }

  // ---- the task's work hook ------------------------------------------------------------------

  stop(): Promise<void> {
    this.#stoppedByTask = true;
    this.#halt();
    return this.#done;
  }

  assertSteerable(): void {
    if (this.#steerRoute === 'refused') throw new CapstanError('STEER_UNSUPPORTED', 'this Harn refused both session/inject and session/input; its script cannot take a steer');
    if (this.#state !== 'running') throw new CapstanError('TASK_NOT_ACTIVE', `the Harn run is ${this.#state}; it takes no steer now`);
  }

  steer(text: string): void {
    const peer = this.#peer;
    const sessionId = this.#harnSession;
    if (!peer || !sessionId) return;
    if (this.#steerRoute === 'input') {
      this.#steerByInput(peer, sessionId, text);
      return;
    }
    // Newer harn-serve (acp/inject.rs handle_session_inject): `{ sessionId, mode, content }` answered
    // `{ messageId, status: "accepted" }`.
    peer.request('session/inject', { sessionId, mode: 'steer', content: text }, STEER_TIMEOUT_MS).then(
      (answer) => {
        const { messageId, status } = fields(answer);
        this.log.add('status', `steer ${typeof status === 'string' ? status.slice(0, 50) : 'sent'} by the script (session/inject, mode steer${typeof messageId === 'string' ? `, message ${messageId.slice(0, 100)}` : ''})`);
      },
      (error: unknown) => {
        if (error instanceof RpcError && error.code === RpcCode.METHOD_NOT_FOUND) {
          // v0.7.50 knows no session/inject: its `session/input` notification, from now on.
          this.#steerRoute = 'input';
          this.#steerByInput(peer, sessionId, text);
          return;
        }
        this.log.add('protocol', `Harn did not take the steer: ${error instanceof Error ? error.message : String(error)}${error instanceof RpcError ? ` (${error.code})` : ''}`);
      },
    );
  }

  /**
   * v0.7.50's `session/input` notification (acp/mod.rs handle_session_input; crates/harn-vm/src/
   * bridge.rs): `{ sessionId, content, mode }`, "finish_step" delivering it after the current step,
   * the checkpoint newer builds give a steer. A notification has no answer, so none can refuse it.
   */
  #steerByInput(peer: RpcPeer, sessionId: string, text: string): void {
    peer.notify('session/input', { sessionId, content: text, mode: 'finish_step' });
    this.log.add('status', 'steer sent to the script (session/input, mode finish_step; Harn does not acknowledge it)');
  }

  // ---- views ---------------------------------------------------------------------------------

  summary(): HarnRunSummary {
    return {
      taskId: this.taskId,
      sessionId: this.sessionId,
      script: this.script,
      state: this.#state,
      outcome: this.#outcome,
      agent: this.#agent,
      steerable: this.#state === 'running' && this.#steerRoute !== 'refused',
      ending: this.#ending,
      startedAt: this.startedAt,
      endedAt: this.#endedAt,
    };
  }

  view(): HarnRunView {
    return { ...this.summary(), prompt: this.prompt, updates: this.log.lines, dropped: this.log.dropped };
  }

  /** For the gateway's shutdown: the child is killed at once. */
  kill(): Promise<unknown> {
    // The restart's recovery closes the task; the database is closing now.
    this.#stoppedByTask = true;
    this.#stopping.abort();
    return this.#child?.kill() ?? Promise.resolve();
  }

  // ---- the run -------------------------------------------------------------------------------

  async #drive(child: HarnChild, peer: RpcPeer): Promise<void> {
    const deadline = setTimeout(() => {
      this.#failure ??= `the run did not end within harn.timeoutMs (${Math.round(this.parts.config.timeoutMs / 1000)} s)`;
      this.#halt();
    }, this.parts.config.timeoutMs);
    void child.exited.then(({ code, signal }) => {
      this.#childGone = true;
      const last = this.log.lines.findLast((line) => line.kind === 'stderr')?.text;
      peer.close(`Harn exited (${signal ? `signal ${signal}` : `code ${code}`}) before the prompt ended${last ? `; its last stderr line: ${last}` : ''}`);
    });
    let ended: { succeeded: boolean; reason: string };
    try {
      ended = await this.#converse(peer);
    } catch (error) {
      ended = { succeeded: false, reason: (error as Error).message };
    }
    clearTimeout(deadline);
    if (this.#failure) ended = { succeeded: false, reason: this.#failure };
    // Nothing more to say: an ACP server whose stdin closes exits; one that does not is killed.
    child.endInput();
    const gone = await Promise.race([child.exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), this.parts.graceMs))]);
    if (!gone) {
      this.log.add('status', `Harn did not exit within ${this.parts.graceMs} ms; killed`);
      await child.kill();
    }
    this.#end(ended);
  }

  /** The ACP conversation; resolves with how the prompt ended, throws for a protocol failure. */
  async #converse(peer: RpcPeer): Promise<{ succeeded: boolean; reason: string }> {
    const init = fields(await peer.request('initialize', { protocolVersion: ACP_PROTOCOL_VERSION, clientCapabilities: {}, clientInfo: { name: 'capstan' } }, HANDSHAKE_TIMEOUT_MS));
    if (init.protocolVersion !== ACP_PROTOCOL_VERSION) throw protocol(`initialize answered protocolVersion ${JSON.stringify(init.protocolVersion)}, not ${ACP_PROTOCOL_VERSION}`);
    const info = fields(init.agentInfo);
    this.#agent = { name: String(info.name ?? 'unknown'), version: String(info.version ?? 'unknown') };
    if (this.#stopping.signal.aborted) throw protocol('stopped during the handshake');
    const created = fields(await peer.request('session/new', { cwd: dirname(this.script), mcpServers: [] }, HANDSHAKE_TIMEOUT_MS));
    if (typeof created.sessionId !== 'string' || created.sessionId === '') throw protocol('session/new answered without a sessionId');
    this.#harnSession = created.sessionId;
    this.#sessions.add(created.sessionId);
    if (this.#stopping.signal.aborted) throw protocol('stopped during the handshake');
    this.#state = 'running';
    this.log.add('status', `${this.#agent.name} ${this.#agent.version}: session ${created.sessionId}; prompt sent`);
    let result: Fields;
    try {
      result = fields(await peer.request('session/prompt', { sessionId: created.sessionId, prompt: [{ type: 'text', text: this.prompt ?? '' }] }));
    } catch (error) {
      if (!(error instanceof RpcError) || this.#childGone) throw error;
      // Harn's failed prompt: -32000 (newer builds add data.schema "harn.acp.prompt_error.v1" and terminalClass).
      const data = fields(error.data);
      const terminalClass = data.schema === PROMPT_ERROR_SCHEMA && typeof data.terminalClass === 'string' ? data.terminalClass : undefined;
      this.#ending = { stopReason: null, terminal: null, error: { code: error.code, message: error.message, ...(terminalClass ? { terminalClass } : {}) } };
      return { succeeded: false, reason: `${error.message} (the prompt failed: JSON-RPC error ${error.code}${terminalClass ? `, terminal class ${terminalClass}` : ''})` };
    }
    const stopReason = typeof result.stopReason === 'string' ? result.stopReason : null;
    const terminal = terminalOf(fields(fields(result._meta).harn).terminal);
    this.#ending = { stopReason, terminal, error: null };
    const how = describeEnding(stopReason, terminal);
    const said = this.log.said.trim();
    // A result without a terminal is a success (v0.7.50's "completed", a pipeline's "end_turn"), but
    // for a cancel; with a terminal, only kind "natural" is.
    const succeeded = terminal ? terminal.kind === 'natural' : stopReason !== 'cancelled';
    if (succeeded) return { succeeded: true, reason: `${said || `${basename(this.script)} completed`} (${how})` };
    return { succeeded: false, reason: `the prompt ended with ${how}${terminal ? ', not "natural"' : ''}` };
  }

  /** Asks Harn to stop (`session/cancel`); if the prompt has not ended within the grace period, kills it. */
  #halt(): void {
    if (this.#stopping.signal.aborted) return;
    this.#stopping.abort();
    if (this.#state !== 'ended') this.#state = 'stopping';
    if (this.#harnSession) {
      this.#peer?.notify('session/cancel', { sessionId: this.#harnSession });
      this.log.add('status', 'session/cancel sent');
    }
    const child = this.#child;
    const inSession = this.#harnSession !== undefined;
    const kill = setTimeout(() => {
      this.log.add('status', inSession ? `the prompt did not end within ${this.parts.graceMs} ms of session/cancel; killed` : 'stopped before the handshake ended; killed');
      void child?.kill();
    }, inSession ? this.parts.graceMs : 0);
    void this.#done.then(() => clearTimeout(kill));
  }

  #protocolError(reason: string): void {
    this.#failure ??= `protocol error: ${reason}`;
    this.log.add('protocol', reason);
    this.#halt();
  }

  /** Records how the run ended; unless the runtime stopped it, ends its task. */
  #end({ succeeded, reason }: { succeeded: boolean; reason: string }): void {
    this.#state = 'ended';
    this.#endedAt = new Date().toISOString();
    if (this.#stoppedByTask) {
      // The runtime ends the task once its barrier is passed; `settle` then says how.
      const ending = this.#ending;
      this.log.add('status', `ended: stopped with its task${ending?.error ? `; Harn answered ${ending.error.message}` : ending ? `; Harn answered ${describeEnding(ending.stopReason, ending.terminal)}` : ''}`);
      this.log.flush();
      return;
    }
    this.#outcome = { state: succeeded ? 'succeeded' : 'failed', reason };
    this.log.add('status', `ended: ${succeeded ? 'succeeded' : 'failed'}, ${reason}`);
    this.log.flush();
    // Detached first, so finishing does not stop the work that is finishing it.
    this.#detach();
    runAs(this.#principal, () => this.parts.tasks.finish(this.sessionId, this.taskId, reason.slice(0, 10_000), succeeded ? 'succeeded' : 'failed')).catch(() => {
      // Only a task that stopped meanwhile refuses this, and the runtime ends that one itself.
    });
  }

  /** Once the task has ended, however: the run's outcome is the task's. */
  settle(state: TaskState, reason: string): void {
    if (state !== 'succeeded' && state !== 'failed' && state !== 'cancelled' && state !== 'superseded') return;
    // The run's span lasts as long as its task, however the run itself ended before.
    this.runTrace?.end(state, reason);
    if (this.#outcome) return;
    this.#outcome = { state, reason };
    this.log.add('status', `task ${state}: ${reason}`);
  }
}

/** `data.schema` of a newer Harn's failed prompt. */
const PROMPT_ERROR_SCHEMA = 'harn.acp.prompt_error.v1';

type Terminal = NonNullable<NonNullable<HarnRunSummary['ending']>['terminal']>;

/** `_meta.harn.terminal` as newer builds send it: `{ kind, reason, owner, terminalClass? }`. */
function terminalOf(value: unknown): Terminal | null {
  const terminal = fields(value);
  if (typeof terminal.kind !== 'string') return null;
  const text = (key: string) => (typeof terminal[key] === 'string' ? { [key]: (terminal[key] as string).slice(0, 500) } : {});
  return { kind: terminal.kind.slice(0, 100), ...text('reason'), ...text('owner'), ...text('terminalClass') };
}

function describeEnding(stopReason: string | null, terminal: Terminal | null): string {
  const parts = [`stopReason ${JSON.stringify(stopReason ?? 'none')}`];
  if (terminal) parts.push(`terminal kind ${JSON.stringify(terminal.kind)}${terminal.reason ? ` (${terminal.reason})` : ''}`);
  if (terminal?.terminalClass) parts.push(`class ${JSON.stringify(terminal.terminalClass)}`);
  return parts.join(', ');
}

function protocol(reason: string): Error {
  return new Error(`protocol error: ${reason}`);
}
