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
import type { LogRecordProcessor, ReadWriteLogRecord } from '@opentelemetry/sdk-logs';
import type { PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';

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

/** What the span and log exporters have in common: batches of items, answered by a callback. */
interface BatchExporter<T> {
  export(items: T[], done: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
  forceFlush?(): Promise<void>;
}

/** An exporter that counts each batch it is handed and how its export ended. */
export function countingExporter<T>(inner: BatchExporter<T>, delivery: Delivery): BatchExporter<T> & { forceFlush(): Promise<void> } {
  return {
    export(items, done) {
      delivery.handed(items.length);
      inner.export(items, (result) => {
        delivery.settled(items.length, result);
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
