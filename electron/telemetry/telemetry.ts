/**
 * Capstan's OpenTelemetry: traces, the ledger as a log stream, and metrics. One per host, made by
 * `startTelemetry`: exporting through the official SDK when settings say so (exporting.ts, loaded
 * only then), quiet otherwise. Quiet, every method is a no-op and spans are the API's
 * non-recording ones, so the call path never asks whether it is on.
 *
 * Trace context is carried by AsyncLocalStorage (the API's context manager), registered once per
 * process whether or not anything is exported: a caller's `traceparent` is continued to the
 * providers either way (trace.ts).
 */
import { context, metrics as noMetrics, trace, type Attributes, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { LedgerEntry } from '../../shared/ledger';
import type { DeliveryCounts } from './delivery';
import { createCapstanMetrics, type CapstanMetrics, type Observed } from './metrics';
import type { Signal, TelemetrySettings } from './settings';

export const INSTRUMENTATION = { name: 'capstan', version: '0.1.0' };

export interface TelemetryStatus {
  enabled: boolean;
  /** Per signal: where it goes ("from OTEL_EXPORTER_OTLP_*" when the environment says) and how it fared. */
  signals: Partial<Record<Signal, { endpoint: string; protocol: string } & DeliveryCounts>>;
  /** The names of the headers sent, never their values. */
  headers: string[];
  sampling: number | null;
}

export interface Telemetry {
  readonly enabled: boolean;
  readonly tracer: Tracer;
  readonly metrics: CapstanMetrics;
  /** Gauges read when metrics are collected: catalog size, provider connections, approvals waiting. */
  observe(observed: Observed): void;
  /** One durable ledger entry as a log record: its facts and hash, never a value (the ledger holds none). */
  ledgerEntry(entry: LedgerEntry): void;
  status(): TelemetryStatus;
  /** Sends what is queued now (tests, and before a clean exit). */
  flush(): Promise<void>;
  /** Sends what is queued, within a bound, and stops. */
  shutdown(): Promise<void>;
}

let contextManagerSet = false;
/** The API's context manager is process-wide: registered by the first host, kept by the others. */
function useAsyncContext(): void {
  if (contextManagerSet) return;
  contextManagerSet = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

/** Telemetry as the settings say: exporting, or (null) quiet. */
export async function startTelemetry(settings: TelemetrySettings | null, gatewayAttributes: Attributes = {}): Promise<Telemetry> {
  useAsyncContext();
  if (!settings) return quietTelemetry();
  const { ExportingTelemetry } = await import('./exporting');
  return new ExportingTelemetry(settings, gatewayAttributes);
}

function quietTelemetry(): Telemetry {
  const metrics = createCapstanMetrics(noMetrics.getMeter(INSTRUMENTATION.name));
  return {
    enabled: false,
    tracer: trace.getTracer(INSTRUMENTATION.name, INSTRUMENTATION.version),
    metrics,
    observe: () => undefined,
    ledgerEntry: () => undefined,
    status: () => ({ enabled: false, signals: {}, headers: [], sampling: null }),
    flush: async () => undefined,
    shutdown: async () => undefined,
  };
}
