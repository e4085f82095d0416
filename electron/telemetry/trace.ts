/**
 * W3C trace context in and out, and the attributes of Capstan's spans.
 *
 * In: a caller's `traceparent` (HTTP header, MCP `_meta`, Harn) makes Capstan's span a child in
 * the caller's trace. Out: the `traceparent` sent on to an MCP provider names the active span
 * (the provider call's), so the server's own span is its child. With export off there is no
 * recording span, but a caller's trace is still continued (its trace id, a fresh span id); with
 * neither, the trace id is derived from the requestId, so either finds the other.
 */
import { hash, randomUUID } from 'node:crypto';
import { context, ROOT_CONTEXT, trace, type Context, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

const propagator = new W3CTraceContextPropagator();
const getter: TextMapGetter<Record<string, string | undefined>> = { keys: (carrier) => Object.keys(carrier), get: (carrier, key) => carrier[key] };
const setter: TextMapSetter<Record<string, string>> = { set: (carrier, key, value) => (carrier[key] = value) };

/** What a caller sent: W3C `traceparent`, and `tracestate` when it sent one. */
export interface IncomingTrace {
  traceparent: string;
  tracestate?: string | undefined;
}

/** The caller's trace as a parent context, or the root when it sent none (or a malformed one). */
export function contextFromCaller(incoming: IncomingTrace | undefined): Context {
  if (!incoming) return ROOT_CONTEXT;
  return propagator.extract(ROOT_CONTEXT, { traceparent: incoming.traceparent, tracestate: incoming.tracestate }, getter);
}

/** A caller's trace from a carrier of any shape (headers, `_meta`): strings only, the rest ignored. */
export function incomingTraceOf(carrier: Record<string, unknown> | undefined): IncomingTrace | undefined {
  const traceparent = carrier?.traceparent;
  if (typeof traceparent !== 'string' || traceparent.length > 256) return undefined;
  const tracestate = carrier?.tracestate;
  return { traceparent, ...(typeof tracestate === 'string' && tracestate.length <= 512 ? { tracestate } : {}) };
}

/**
 * The `traceparent` to send a provider: the active span's when there is one (sampled or not),
 * else one whose trace id is derived from the requestId.
 */
export function outgoingTraceparent(requestId: string): string {
  const carried = traceOf(context.active());
  if (carried) return carried.traceparent;
  // randomUUID draws from a cached pool: cheaper per call than randomBytes(8).
  return `00-${derivedTraceId(requestId)}-${randomUUID().replaceAll('-', '').slice(0, 16)}-01`;
}

/** A context's span as W3C trace context, to hand on; undefined when it has no valid span. */
export function traceOf(carrying: Context): IncomingTrace | undefined {
  const span = trace.getSpanContext(carrying);
  if (!span || !trace.isSpanContextValid(span)) return undefined;
  const carrier: Record<string, string> = {};
  propagator.inject(carrying, carrier, setter);
  return carrier.traceparent ? { traceparent: carrier.traceparent, ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}) } : undefined;
}

/** The trace a call belongs to, shown beside its requestId: the active span's, else the one derived from the requestId. */
export function traceIdOf(requestId: string): string {
  const active = trace.getSpanContext(context.active());
  return active && trace.isSpanContextValid(active) ? active.traceId : derivedTraceId(requestId);
}

/** One-shot: asked twice on every call (its answer, and the traceparent its MCP server is sent). */
const derivedTraceId = (requestId: string) => hash('sha256', requestId).slice(0, 32);

/** Attribute names: OpenTelemetry's semantic conventions where they exist (MCP, GenAI tools), Capstan's own beside them. */
export const SPAN_ATTRIBUTES = {
  mcpMethod: 'mcp.method.name',
  toolName: 'gen_ai.tool.name',
  operationName: 'gen_ai.operation.name',
  errorType: 'error.type',
  requestId: 'capstan.request_id',
  taskId: 'capstan.task_id',
  sessionId: 'capstan.session_id',
  principal: 'capstan.principal',
  capability: 'capstan.capability_id',
  risk: 'capstan.risk',
  outcome: 'capstan.outcome',
  errorCode: 'capstan.error_code',
  provider: 'capstan.provider',
} as const;
