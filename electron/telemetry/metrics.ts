/**
 * Capstan's metrics. Names follow OpenTelemetry's conventions (dots, units in UCUM, durations
 * in seconds); each is described in docs/telemetry.md.
 */
import type { Counter, Histogram, Meter, ObservableResult } from '@opentelemetry/api';

/** What the gauges read when metrics are collected, supplied by the host. */
export interface Observed {
  /** Capabilities per provider. */
  catalogSize(): { provider: string; kind: string; count: number }[];
  /** Each provider's connection state (`ready`, `failed`, `connecting`, `disabled`…). */
  providerStates(): { provider: string; state: string }[];
  /** Agents' calls waiting for the operator. */
  approvalsPending(): number;
}

/** Call latency buckets, in seconds: from sub-millisecond builtins to minute-long remote tools. */
const CALL_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface CapstanMetrics {
  /** Calls, by outcome status (ok, failed, refused, cancelled, outcome_unknown), capability and error code. */
  calls: Counter;
  callDuration: Histogram;
  approvalWait: Histogram;
  ledgerFlush: Histogram;
  observe(observed: Observed): void;
}

export function createCapstanMetrics(meter: Meter): CapstanMetrics {
  const metrics: CapstanMetrics = {
    calls: meter.createCounter('capstan.calls', { description: 'Tool calls, by status and capability', unit: '{call}' }),
    callDuration: meter.createHistogram('capstan.call.duration', { description: 'Tool call latency, from the call service to its answer', unit: 's', advice: { explicitBucketBoundaries: CALL_BUCKETS } }),
    approvalWait: meter.createHistogram('capstan.approval.wait', { description: "How long agents' calls waited for the operator's decision", unit: 's' }),
    ledgerFlush: meter.createHistogram('capstan.ledger.flush.duration', { description: 'From the ledger being asked to make its entries durable (an answer waiting for them) to their commit on disk', unit: 's', advice: { explicitBucketBoundaries: CALL_BUCKETS } }),
    observe(observed) {
      meter.createObservableGauge('capstan.catalog.capabilities', { description: 'Capabilities in the catalog, per provider and kind', unit: '{capability}' }).addCallback((result: ObservableResult) => {
        for (const { provider, kind, count } of observed.catalogSize()) result.observe(count, { 'capstan.provider': provider, 'capstan.capability.kind': kind });
      });
      meter.createObservableGauge('capstan.provider.connected', { description: 'Whether each provider is connected (1) or not (0), with its state', unit: '1' }).addCallback((result: ObservableResult) => {
        for (const { provider, state } of observed.providerStates()) result.observe(state === 'ready' ? 1 : 0, { 'capstan.provider': provider, 'capstan.provider.state': state });
      });
      meter.createObservableGauge('capstan.approvals.pending', { description: "Agents' calls waiting for the operator", unit: '{call}' }).addCallback((result: ObservableResult) => {
        result.observe(observed.approvalsPending());
      });
    },
  };
  return metrics;
}
