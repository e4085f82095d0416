/**
 * A server's questions for the person at the console: `elicitation/create` (a form, or a URL to
 * visit) and `sampling/createMessage` (the model's reply, written by hand: no model is called).
 * Both are handed to the host's `AskOperator`, which puts them to the operator and resolves with
 * their answer; Capstan never answers by itself. The ask is withdrawn (its signal aborts) when
 * the server cancels its request or when the call it came during ends.
 */
import { ProtocolError, type Client, type CreateMessageResult, type ElicitResult } from '@modelcontextprotocol/client';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import { bindTaskReceiver } from '@modelcontextprotocol/ext-tasks/receiver';
import type { AskKind, SamplingAsk } from '../../../shared/serverAsks';

export interface AskRequest {
  server: string;
  kind: AskKind;
  /** The Capstan call it came during, when Capstan can tell (exactly one call to the server was running). */
  requestId: string | null;
  message: string;
  mode: 'form' | 'url' | null;
  requestedSchema: Record<string, unknown> | null;
  url: string | null;
  sampling: SamplingAsk | null;
}

export interface AskAnswer {
  action: 'accept' | 'decline' | 'cancel';
  /** Elicitation, form mode, accepted: the values (checked and defaults applied by the host). */
  content?: Record<string, unknown> | undefined;
  /** Sampling, accepted: the reply's text. */
  reply?: string | undefined;
}

/** Puts a question to the operator; resolves with their answer, rejects when it expires or is withdrawn. */
export type AskOperator = (request: AskRequest, signal: AbortSignal) => Promise<AskAnswer>;

/** What a model reply written by the operator says it came from. */
export const OPERATOR_MODEL = 'capstan-operator';
/** The error code MCP gives a refused sampling request ("User rejected sampling request"). */
export const SAMPLING_REFUSED = -1;

export interface AskContext {
  server: string;
  ask: AskOperator;
  /** The call this request came during, and a signal that aborts when that call ends. */
  callFor(): { requestId: string | null; ended: AbortSignal | null };
}

/**
 * Sets the client's elicitation and sampling handlers (their capabilities are declared by the
 * caller): plain requests, and task-augmented ones (2025-11-25 tasks: the server asks for the
 * answer as a task of Capstan's, which it polls; ext-tasks' receiver keeps those tasks), both
 * put to the operator the same way.
 */
export function installAskHandlers(client: Client, context: AskContext): void {
  client.setRequestHandler('elicitation/create', (request, ctx) => elicit(context, request.params as Record<string, unknown>, ctx.mcpReq.signal));
  client.setRequestHandler('sampling/createMessage', (request, ctx) => sample(context, request.params as Record<string, unknown>, ctx.mcpReq.signal));
  // Plain requests go on to the handlers above; only task-augmented ones become tasks.
  bindTaskReceiver(client, {
    methods: { 'elicitation/create': true, 'sampling/createMessage': true },
    ttlMs: ASK_TASK_TTL_MS,
    pollIntervalMs: ASK_TASK_POLL_MS,
    elicitation: async (request, { signal }) => (await elicit(context, request.params as Record<string, unknown>, signal)) as Record<string, JsonValue>,
    sampling: async (request, { signal }) => (await sample(context, request.params as Record<string, unknown>, signal)) as unknown as Record<string, JsonValue>,
  });
}

/** What the server declares when it asks for an answer as a task: how long it is kept, how often to poll. */
const ASK_TASK_TTL_MS = 30 * 60_000;
const ASK_TASK_POLL_MS = 1_000;

async function elicit(context: AskContext, params: Record<string, unknown>, signal: AbortSignal): Promise<ElicitResult> {
  const mode = params.mode === 'url' ? 'url' : 'form';
  const answer = await put(context, signal, {
    kind: 'elicitation',
    message: typeof params.message === 'string' ? params.message : '',
    mode,
    requestedSchema: mode === 'form' && typeof params.requestedSchema === 'object' && params.requestedSchema !== null ? (params.requestedSchema as Record<string, unknown>) : null,
    url: mode === 'url' && typeof params.url === 'string' ? params.url : null,
    sampling: null,
  });
  if (answer.action !== 'accept') return { action: answer.action };
  return mode === 'form' ? { action: 'accept', content: (answer.content ?? {}) as ElicitResult['content'] } : { action: 'accept' };
}

async function sample(context: AskContext, params: Record<string, unknown>, signal: AbortSignal): Promise<CreateMessageResult> {
  const hints = ((params.modelPreferences as { hints?: unknown } | undefined)?.hints ?? []) as unknown[];
  const answer = await put(context, signal, {
    kind: 'sampling',
    message: 'The server asks for a model reply to the conversation below.',
    mode: null,
    requestedSchema: null,
    url: null,
    sampling: {
      messages: (Array.isArray(params.messages) ? params.messages : []).map((message: { role?: unknown; content?: unknown }) => ({ role: String(message?.role ?? ''), content: message?.content ?? null })),
      systemPrompt: typeof params.systemPrompt === 'string' ? params.systemPrompt : null,
      maxTokens: typeof params.maxTokens === 'number' ? params.maxTokens : null,
      modelHints: hints.flatMap((hint) => (typeof (hint as { name?: unknown })?.name === 'string' ? [(hint as { name: string }).name] : [])),
    },
  });
  if (answer.action !== 'accept') throw new ProtocolError(SAMPLING_REFUSED, 'The operator refused this sampling request');
  return { role: 'assistant', content: { type: 'text', text: answer.reply ?? '' }, model: OPERATOR_MODEL, stopReason: 'endTurn' };
}

async function put(context: AskContext, request: AbortSignal, ask: Omit<AskRequest, 'server' | 'requestId'>): Promise<AskAnswer> {
  const { requestId, ended } = context.callFor();
  const signal = ended ? AbortSignal.any([request, ended]) : request;
  return context.ask({ server: context.server, requestId, ...ask }, signal);
}
