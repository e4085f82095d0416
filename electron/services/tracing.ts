/**
 * Operations as OpenTelemetry spans: a discovery operation as one span, and a tool call as a
 * trace of its own steps.
 *
 * A tool call: one server span for the call (`tools/call <tool>`, as
 * MCP's semantic conventions name it), with children for the policy decision, the confirmation
 * or approval wait, the provider call (a client span, active while the tool runs, so the
 * `traceparent` sent to an MCP server names it: electron/telemetry/trace.ts) and the ledger
 * flush that the answer waits for. A caller's `traceparent` makes the call span its child.
 *
 * With export off and no caller's trace there is nothing to continue or record: the call runs
 * without any of this.
 */
import { context as otelContext, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { ToolCallResponse } from '../../shared/api';
import type { ToolContract } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';
import type { Telemetry } from '../telemetry/telemetry';
import { contextFromCaller, SPAN_ATTRIBUTES as A, type IncomingTrace } from '../telemetry/trace';

/** How a call ended, for its span and metrics: the runtime's statuses, and `refused` before it ran. */
export type TracedOutcome = 'ok' | 'error' | 'cancelled' | 'outcome_unknown' | 'refused';

/** What the call service tells its trace as the call goes; every method is cheap and safe when not tracing. */
export interface CallTrace {
  /** The tool resolved, in its task. */
  resolved(contract: Pick<ToolContract, 'id' | 'provider' | 'riskLevel'>, task: { id: string; sessionId: string }): void;
  /** A synchronous step as a child span. */
  step<T>(name: string, run: () => T): T;
  /** An asynchronous step as a child span (the confirmation or approval wait). */
  wait<T>(name: string, run: () => Promise<T>): Promise<T>;
  /** The provider call: a client span, active while the tool runs. */
  provider<T>(run: () => Promise<T>): Promise<T>;
  /** The runtime's outcome, once it is recorded. */
  ended(outcome: TracedOutcome): void;
}

const NOT_TRACED: CallTrace = {
  resolved: () => undefined,
  step: (_name, run) => run(),
  wait: (_name, run) => run(),
  provider: (run) => run(),
  ended: () => undefined,
};

const codeOf = (error: unknown) => (error instanceof CapstanError ? error.code : 'INTERNAL');

/** Runs a call in its trace, and counts it in the call metrics. */
export async function traceCall(
  telemetry: Telemetry,
  call: { tool: string; requestId: string; principal: string; incoming: IncomingTrace | undefined },
  run: (trace: CallTrace) => Promise<ToolCallResponse>,
): Promise<ToolCallResponse> {
  if (!telemetry.enabled && !call.incoming) return run(NOT_TRACED);
  const { tracer, metrics } = telemetry;
  const started = performance.now();
  let outcome: TracedOutcome | undefined;
  let capability = call.tool;
  let providerSettled: number | undefined;
  const parent = contextFromCaller(call.incoming);
  return tracer.startActiveSpan(
    `tools/call ${call.tool}`,
    {
      kind: SpanKind.SERVER,
      attributes: { [A.mcpMethod]: 'tools/call', [A.operationName]: 'execute_tool', [A.toolName]: call.tool, [A.requestId]: call.requestId, [A.principal]: call.principal },
    },
    parent,
    async (span: Span) => {
      const child = <T>(name: string, kind: SpanKind, body: () => T): T => tracer.startActiveSpan(name, { kind }, (step: Span) => settleSpan(step, body));
      const callTrace: CallTrace = {
        resolved(contract, task) {
          capability = contract.id;
          span.setAttributes({ [A.capability]: contract.id, [A.provider]: contract.provider, [A.risk]: contract.riskLevel, [A.taskId]: task.id, [A.sessionId]: task.sessionId });
        },
        step: (name, body) => child(name, SpanKind.INTERNAL, body),
        wait: (name, body) => child(name, SpanKind.INTERNAL, body),
        provider: (body) =>
          tracer.startActiveSpan(`tools/call ${call.tool}`, { kind: SpanKind.CLIENT, attributes: { [A.mcpMethod]: 'tools/call', [A.toolName]: call.tool, [A.capability]: capability } }, (step: Span) =>
            settleSpan(step, body).finally(() => (providerSettled = performance.now())),
          ),
        ended: (status) => (outcome = status),
      };
      try {
        const answer = await run(callTrace);
        outcome = 'ok';
        return answer;
      } catch (error) {
        outcome ??= 'refused';
        const code = codeOf(error);
        span.setAttributes({ [A.errorType]: code, [A.errorCode]: code });
        // The code, never the message: a message may quote what the caller sent or what a tool
        // answered (as errorEnvelope keeps it out of the log), and spans leave for the collector.
        span.setStatus({ code: SpanStatusCode.ERROR, message: code });
        throw error;
      } finally {
        // The answer waited for the call's end to be durable: from the provider's answer to here.
        if (providerSettled !== undefined) {
          tracer.startSpan('capstan.ledger.flush', { startTime: performanceToEpoch(providerSettled) }, trace.setSpan(otelContext.active(), span)).end();
        }
        span.setAttribute(A.outcome, outcome ?? 'refused');
        span.end();
        const attributes = { [A.outcome]: outcome ?? 'refused', [A.capability]: capability };
        metrics.calls.add(1, attributes);
        metrics.callDuration.record((performance.now() - started) / 1000, attributes);
      }
    },
  );
}

/**
 * A discovery operation (capabilities_list, _search, _inspect, tools_load, skills_activate) as
 * one server span, named by its wire name, in the caller's trace when it sent one.
 */
export async function traceOperation<T>(telemetry: Telemetry, name: string, call: { requestId: string; principal: string; incoming: IncomingTrace | undefined }, run: () => Promise<T>): Promise<T> {
  if (!telemetry.enabled && !call.incoming) return run();
  const attributes = { [A.mcpMethod]: 'tools/call', [A.toolName]: name, [A.requestId]: call.requestId, [A.principal]: call.principal };
  return telemetry.tracer.startActiveSpan(name, { kind: SpanKind.SERVER, attributes }, contextFromCaller(call.incoming), (span: Span) => settleSpan(span, run));
}

/** Ends a step's span when its work settles, marking it failed when the work throws. */
function settleSpan<T>(span: Span, body: () => T): T {
  const fail = (error: unknown) => {
    // The code only, as the call's span says (above).
    span.setStatus({ code: SpanStatusCode.ERROR, message: codeOf(error) });
    span.setAttribute(A.errorType, codeOf(error));
  };
  try {
    const result = body();
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => {
          span.end();
          return value;
        },
        (error: unknown) => {
          fail(error);
          span.end();
          throw error;
        },
      ) as T;
    }
    span.end();
    return result;
  } catch (error) {
    fail(error);
    span.end();
    throw error;
  }
}

/** performance.now() as epoch milliseconds, which span start times take. */
const performanceToEpoch = (at: number) => performance.timeOrigin + at;
