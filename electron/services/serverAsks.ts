/**
 * What MCP servers ask of the operator while their tools run (shared/serverAsks.ts): each ask
 * waits here until the operator answers it, until it expires (`approvals.timeoutMs`, as an
 * agent's call waiting for approval does), or until it is withdrawn (its call ended, or the
 * server took it back). Nobody but the operator answers: an expiry or a withdrawal is a
 * cancellation to the server, never an answer made up for it.
 *
 * The ask and its end are ledger entries (`server_asked`, `server_answered`), the end written
 * before it takes effect; the server's message and the operator's content or reply are kept as
 * keyed digests only. The call an ask came during is found by its requestId (the call's
 * `call_started` entry says whose call it is and in which task), so an agent's call's ask shows
 * in Approvals beside it, and the operator's as a dialog while the call waits.
 */
import { randomUUID } from 'node:crypto';
import { applyElicitationDefaults, checkElicitationContent } from '../../shared/elicitation';
import { CapstanError } from '../../shared/errors';
import { OPERATOR, SYSTEM } from '../../shared/principal';
import type { AnswerAskInput, AskStatus, ServerAsksView, ServerAskView } from '../../shared/serverAsks';
import type { AskAnswer, AskRequest } from '../providers/mcp/asks';
import type { Ledger } from '../runtime/ledger';

/** Each pending ask is an open request and a row on the operator's screen: a flood is refused, not queued. */
export const MAX_PENDING_ASKS = 200;
/** One server's share of them, so that a server asking without end leaves room for the others. */
export const MAX_PENDING_ASKS_PER_SERVER = 20;
/**
 * The most an ask may say (its message, form, URL or conversation, as JSON): what a person can
 * read before answering, and what every view of the pending asks carries. A bigger one is refused.
 */
export const MAX_ASK_BYTES = 256 * 1024;
export const RECENT_ASKS = 50;

export interface ServerAsksOptions {
  ledger: Pick<Ledger, 'append' | 'digest' | 'query'>;
  /** Read at each ask: config.json's `approvals.timeoutMs`, which may change while the gateway runs. */
  timeoutMs(): number;
  publish(view: ServerAskView): void;
  now?: () => number;
  /** Opens a page in the person's browser (the desktop app's shell); absent, the client opens it itself. */
  openPage?: ((url: string) => void) | undefined;
}

interface Pending {
  view: ServerAskView;
  requestedAtMs: number;
  settle(answer: AskAnswer): void;
  fail(error: Error): void;
  stop(): void;
}

export class ServerAsks {
  readonly #pending = new Map<string, Pending>();
  #recent: ServerAskView[] = [];
  readonly #now: () => number;

  constructor(private readonly options: ServerAsksOptions) {
    this.#now = options.now ?? Date.now;
  }

  /** Puts a server's question to the operator (the host's AskOperator). */
  ask(request: AskRequest, signal: AbortSignal): Promise<AskAnswer> {
    if (signal.aborted) return Promise.reject(new Error(`withdrawn before it was asked (${String(signal.reason)})`));
    if (this.#pending.size >= MAX_PENDING_ASKS) return Promise.reject(new Error(`${MAX_PENDING_ASKS} questions already wait for the operator`));
    const fromServer = [...this.#pending.values()].filter((pending) => pending.view.server === request.server).length;
    if (fromServer >= MAX_PENDING_ASKS_PER_SERVER) return Promise.reject(new Error(`${MAX_PENDING_ASKS_PER_SERVER} questions from this server already wait for the operator`));
    const bytes = jsonBytes([request.message, request.requestedSchema, request.url, request.sampling]);
    if (bytes > MAX_ASK_BYTES) return Promise.reject(new Error(`the question takes ${bytes} bytes of JSON, over the ${MAX_ASK_BYTES} a question may take`));
    const timeoutMs = this.options.timeoutMs();
    const id = `ask-${randomUUID()}`;
    const requestedAtMs = this.#now();
    const call = request.requestId ? this.options.ledger.query({ requestId: request.requestId, kind: 'call_started' }).at(-1) : undefined;
    const view: ServerAskView = {
      id,
      server: request.server,
      kind: request.kind,
      requestId: request.requestId,
      principal: call?.principal ?? OPERATOR,
      taskId: call?.taskId ?? null,
      capability: call?.capability ?? null,
      message: request.message,
      mode: request.mode,
      requestedSchema: request.requestedSchema,
      url: request.url,
      sampling: request.sampling,
      status: 'pending',
      requestedAt: new Date(requestedAtMs).toISOString(),
      expiresAt: new Date(requestedAtMs + timeoutMs).toISOString(),
      ageMs: 0,
      answeredAt: null,
      reason: null,
    };
    this.options.ledger.append({
      kind: 'server_asked',
      taskId: view.taskId,
      sessionId: call?.sessionId ?? null,
      requestId: view.requestId,
      capability: view.capability,
      principal: SYSTEM,
      details: {
        askId: id,
        server: view.server,
        ask: view.kind,
        ...(view.mode ? { mode: view.mode } : {}),
        caller: view.principal,
        messageDigest: this.options.ledger.digest(request.kind === 'sampling' ? request.sampling : { message: request.message, schema: request.requestedSchema, url: request.url }),
        expiresAt: view.expiresAt,
      },
    });
    return new Promise<AskAnswer>((resolve, reject) => {
      const expiry = setTimeout(() => this.#endQuietly(id, 'expired', `no answer within ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
      const withdraw = () => this.#endQuietly(id, 'withdrawn', typeof signal.reason === 'string' ? signal.reason : 'the server or the call no longer waits for it');
      signal.addEventListener('abort', withdraw, { once: true });
      this.#pending.set(id, {
        view,
        requestedAtMs,
        settle: resolve,
        fail: reject,
        stop: () => {
          clearTimeout(expiry);
          signal.removeEventListener('abort', withdraw);
        },
      });
      this.options.publish(view);
    });
  }

  /** The operator's answer (operator only). */
  answer({ id, action, content, reply, open }: AnswerAskInput): ServerAskView {
    const pending = this.#pending.get(id);
    if (!pending) {
      const ended = this.#recent.find((view) => view.id === id);
      if (ended) throw new CapstanError('ASK_NOT_PENDING', `${id} was already ${ended.status}`, { status: ended.status });
      throw new CapstanError('ASK_NOT_FOUND', `no question "${id}" from a server is pending or recent`);
    }
    const { view } = pending;
    let answer: AskAnswer = { action };
    if (action === 'accept' && view.kind === 'elicitation' && view.mode === 'form') {
      const filled = applyElicitationDefaults(view.requestedSchema, content ?? {});
      const problems = checkElicitationContent(view.requestedSchema, filled);
      const [field, problem] = Object.entries(problems)[0] ?? [];
      if (field) throw new CapstanError('BAD_REQUEST', `${field}: ${problem}`, { field: `content.${field}` });
      answer = { action, content: filled };
    } else if (action === 'accept' && view.kind === 'sampling') {
      if (!reply?.trim()) throw new CapstanError('BAD_REQUEST', 'a sampling answer needs the reply the server gets as the model\'s message', { field: 'reply' });
      answer = { action, reply };
    } else if (view.kind === 'sampling' && action === 'cancel') {
      answer = { action: 'decline' };
    }
    const status: AskStatus = action === 'accept' ? 'accepted' : action === 'decline' ? 'declined' : 'cancelled';
    const ended = this.#end(id, status, null, answer)!;
    // The page the server asked for, as the operator saw it, and only an http(s) one.
    if (open && action === 'accept' && view.mode === 'url' && view.url && /^https?:\/\//i.test(view.url)) this.options.openPage?.(view.url);
    return ended;
  }

  /** Pending asks oldest first, then the recent ends newest first. */
  list(): ServerAsksView {
    const now = this.#now();
    return {
      pending: [...this.#pending.values()].map(({ view, requestedAtMs }) => ({ ...view, ageMs: Math.max(0, now - requestedAtMs) })),
      recent: [...this.#recent],
      timeoutMs: this.options.timeoutMs(),
    };
  }

  /** Withdraws every pending ask; for shutdown, while the ledger can still record it. */
  close(): void {
    for (const id of [...this.#pending.keys()]) this.#endQuietly(id, 'withdrawn', 'the gateway stopped');
  }

  /** Records the end, then applies it: a failed write leaves the ask pending. */
  #end(id: string, status: Exclude<AskStatus, 'pending'>, reason: string | null, answer: AskAnswer | null): ServerAskView | undefined {
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    const now = this.#now();
    const { view } = pending;
    const given = answer?.content ?? answer?.reply;
    this.options.ledger.append({
      kind: 'server_answered',
      taskId: view.taskId,
      requestId: view.requestId,
      capability: view.capability,
      details: {
        askId: id,
        server: view.server,
        ask: view.kind,
        answer: status,
        waitedMs: now - pending.requestedAtMs,
        ...(given !== undefined ? { contentDigest: this.options.ledger.digest(given) } : {}),
        ...(reason ? { reason } : {}),
      },
      // Nobody answered an expiry or a withdrawal: the gateway records it by itself.
      ...(answer ? {} : { principal: SYSTEM }),
    });
    this.#pending.delete(id);
    pending.stop();
    const ended: ServerAskView = { ...view, status, ageMs: now - pending.requestedAtMs, answeredAt: new Date(now).toISOString(), reason };
    this.#recent = [ended, ...this.#recent].slice(0, RECENT_ASKS);
    this.options.publish(ended);
    // An expiry or a withdrawal tells the server its question was cancelled: nobody answered it.
    if (answer) pending.settle(answer);
    else pending.settle({ action: 'cancel' });
    return ended;
  }

  #endQuietly(id: string, status: 'expired' | 'withdrawn', reason: string): void {
    try {
      this.#end(id, status, reason, null);
    } catch (error) {
      const pending = this.#pending.get(id);
      this.#pending.delete(id);
      pending?.stop();
      pending?.fail(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

/** Bytes of JSON; one that cannot be written out (nested past the stack) counts as too big. */
function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value));
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
