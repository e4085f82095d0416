/**
 * What became of each span, log record and metric export: sent, failed (the backend refused it
 * or could not be reached) or dropped (the queue was full, so it was never tried). The SDK's
 * batch processors drop quietly when their queue is full; these wrappers keep the same bound in
 * front of them and count, so Diagnostics can say what a slow or absent backend cost, and a call
 * never waits for an export.
 */
import type { Context } from '@opentelemetry/api';
import { TraceFlags } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { LogRecordExporter, LogRecordProcessor, ReadableLogRecord, ReadWriteLogRecord } from '@opentelemetry/sdk-logs';
import type { PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';

export interface DeliveryCounts {
  sent: number;
  failed: number;
  dropped: number;
}

export class Delivery {
  sent = 0;
  failed = 0;
  dropped = 0;
  /** Accepted into the queue and not yet handed to the exporter. */
  #queued = 0;

  constructor(readonly maxQueueSize: number) {}

  /** Whether one more item fits; counts it as dropped when it does not. */
  admit(): boolean {
    if (this.#queued >= this.maxQueueSize) {
      this.dropped += 1;
      return false;
    }
    this.#queued += 1;
    return true;
  }

  handed(count: number): void {
    this.#queued = Math.max(0, this.#queued - count);
  }

  settled(count: number, result: ExportResult): void {
    if (result.code === ExportResultCode.SUCCESS) this.sent += count;
    else this.failed += count;
  }

  counts(): DeliveryCounts {
    return { sent: this.sent, failed: this.failed, dropped: this.dropped };
  }
}

export function countingSpanExporter(inner: SpanExporter, delivery: Delivery): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      delivery.handed(spans.length);
      inner.export(spans, (result) => {
        delivery.settled(spans.length, result);
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

/** In front of a batch processor: a sampled span that would overflow its queue is counted and left out. */
export function boundedSpanProcessor(inner: SpanProcessor, delivery: Delivery): SpanProcessor {
  return {
    onStart: (span: Span, parent: Context) => inner.onStart(span, parent),
    onEnd(span: ReadableSpan) {
      if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
      if (delivery.admit()) inner.onEnd(span);
    },
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
  };
}

export function countingLogExporter(inner: LogRecordExporter, delivery: Delivery): LogRecordExporter {
  return {
    export(records: ReadableLogRecord[], done: (result: ExportResult) => void) {
      delivery.handed(records.length);
      inner.export(records, (result) => {
        delivery.settled(records.length, result);
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

export function boundedLogProcessor(inner: LogRecordProcessor, delivery: Delivery): LogRecordProcessor {
  return {
    onEmit(record: ReadWriteLogRecord, context?: Context) {
      if (delivery.admit()) inner.onEmit(record, context);
    },
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
  };
}

/** Metrics are read on a timer, never queued per call: only exports are counted, one per collection. */
export function countingMetricExporter(inner: PushMetricExporter, delivery: Delivery): PushMetricExporter {
  return {
    export(metrics: ResourceMetrics, done: (result: ExportResult) => void) {
      inner.export(metrics, (result) => {
        delivery.settled(1, result);
        done(result);
      });
    },
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
    ...(inner.selectAggregationTemporality ? { selectAggregationTemporality: inner.selectAggregationTemporality.bind(inner) } : {}),
    ...(inner.selectAggregation ? { selectAggregation: inner.selectAggregation.bind(inner) } : {}),
  };
}
