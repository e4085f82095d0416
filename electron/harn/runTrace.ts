/**
 * A Harn run as a span (`harn.run <script>`) that lasts as long as its task: the parent of each
 * call the script makes (unless Harn names its own span in `_meta`), and of Harn's own spans,
 * through the W3C `TRACEPARENT` variable the child is started with (OpenTelemetry's environment
 * carrier, which Harn's OTLP tracing reads). A caller's `traceparent` on `POST /harn/runs` makes
 * the run a span of the caller's trace.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { Telemetry } from '../telemetry/telemetry';
import { contextFromCaller, traceOf, SPAN_ATTRIBUTES as A, type IncomingTrace } from '../telemetry/trace';

export interface RunTrace {
  /** The run span's context for its children, when there is a trace to continue. */
  readonly context: IncomingTrace | undefined;
  /** The variables that hand the trace to the Harn child. */
  readonly environment: Record<string, string>;
  end(state: string, reason: string): void;
}

const NO_TRACE: RunTrace = { context: undefined, environment: {}, end: () => undefined };

export function startRunTrace(telemetry: Telemetry, run: { script: string; taskId: string; sessionId: string; principal: string }, incoming: IncomingTrace | undefined): RunTrace {
  if (!telemetry.enabled && !incoming) return NO_TRACE;
  const span: Span = telemetry.tracer.startSpan(
    `harn.run ${run.script.split(/[\\/]/).pop()}`,
    { kind: SpanKind.INTERNAL, attributes: { 'capstan.harn.script': run.script, [A.taskId]: run.taskId, [A.sessionId]: run.sessionId, [A.principal]: run.principal } },
    contextFromCaller(incoming),
  );
  const context = traceOf(trace.setSpan(ROOT_CONTEXT, span));
  let ended = false;
  return {
    context,
    environment: context ? { TRACEPARENT: context.traceparent, ...(context.tracestate ? { TRACESTATE: context.tracestate } : {}) } : {},
    end(state, reason) {
      if (ended) return;
      ended = true;
      span.setAttribute(A.outcome, state);
      if (state !== 'succeeded') span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
      span.end();
    },
  };
}
