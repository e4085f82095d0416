/**
 * Telemetry that exports: the official SDK's tracer, logger and meter providers behind OTLP/HTTP
 * exporters (protobuf or JSON), each behind a bounded queue that counts what it sends, fails and
 * drops (delivery.ts). Loaded only when telemetry is on (telemetry.ts), so a gateway that exports
 * nothing never loads the SDK.
 */
import type { Attributes, Meter, Tracer } from '@opentelemetry/api';
import { SeverityNumber, type Logger as OtelLogger } from '@opentelemetry/api-logs';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { LedgerEntry } from '../../shared/ledger';
import { boundedLogProcessor, boundedSpanProcessor, countingExporter, countingMetricExporter, Delivery } from './delivery';
import { ledgerLogAttributes } from './ledgerStream';
import { createCapstanMetrics, type CapstanMetrics, type Observed } from './metrics';
import { SIGNALS, type Signal, type TelemetrySettings } from './settings';
import { INSTRUMENTATION, type Telemetry, type TelemetryStatus } from './telemetry';

export class ExportingTelemetry implements Telemetry {
  readonly enabled = true;
  readonly tracer: Tracer;
  readonly metrics: CapstanMetrics;
  readonly #settings: TelemetrySettings;
  readonly #delivery: Record<Signal, Delivery>;
  readonly #tracerProvider: TracerProvider;
  readonly #loggerProvider: LoggerProvider;
  readonly #meterProvider: MeterProvider;
  readonly #ledgerLogger: OtelLogger;

  constructor(settings: TelemetrySettings, gatewayAttributes: Attributes = {}) {
    this.#settings = settings;
    const resource = defaultResource().merge(
      resourceFromAttributes({ ...settings.resourceAttributes, ...gatewayAttributes, [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: INSTRUMENTATION.version }),
    );
    const delivery = { traces: new Delivery(settings.maxQueueSize), logs: new Delivery(settings.maxQueueSize), metrics: new Delivery(settings.maxQueueSize) };
    this.#delivery = delivery;
    const options = (signal: Signal) => ({ ...(settings.urls[signal] ? { url: settings.urls[signal] } : {}), ...(settings.headers ? { headers: settings.headers } : {}) });
    const json = (signal: Signal) => settings.protocol[signal] === 'http/json';

    const spanExporter = json('traces') ? new JsonTraceExporter(options('traces')) : new ProtoTraceExporter(options('traces'));
    this.#tracerProvider = new TracerProvider({
      resource,
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.sampling) }),
      spanProcessors: [boundedSpanProcessor(new BatchSpanProcessor({ exporter: countingExporter(spanExporter, delivery.traces), maxQueueSize: settings.maxQueueSize }), delivery.traces)],
    });
    this.tracer = this.#tracerProvider.getTracer(INSTRUMENTATION.name, INSTRUMENTATION.version);

    const logExporter = json('logs') ? new JsonLogExporter(options('logs')) : new ProtoLogExporter(options('logs'));
    this.#loggerProvider = new LoggerProvider({
      resource,
      processors: [boundedLogProcessor(new BatchLogRecordProcessor({ exporter: countingExporter(logExporter, delivery.logs), maxQueueSize: settings.maxQueueSize }), delivery.logs)],
    });
    this.#ledgerLogger = this.#loggerProvider.getLogger(`${INSTRUMENTATION.name}.ledger`, INSTRUMENTATION.version);

    const metricExporter = json('metrics') ? new JsonMetricExporter(options('metrics')) : new ProtoMetricExporter(options('metrics'));
    this.#meterProvider = new MeterProvider({
      resource,
      readers: [new PeriodicExportingMetricReader({ exporter: countingMetricExporter(metricExporter, delivery.metrics), exportIntervalMillis: settings.metricIntervalMs })],
    });
    this.metrics = createCapstanMetrics(this.#meterProvider.getMeter(INSTRUMENTATION.name, INSTRUMENTATION.version) as Meter);
  }

  /** Gauges read when metrics are collected: catalog size, provider connections, approvals waiting. */
  observe(observed: Observed): void {
    this.metrics.observe(observed);
  }

  /** One ledger entry as a log record: its facts and hash, never a value (the ledger holds none). Send only durable entries. */
  ledgerEntry(entry: LedgerEntry): void {
    this.#ledgerLogger.emit({
      severityNumber: SeverityNumber.INFO,
      severityText: 'INFO',
      eventName: `capstan.ledger.${entry.kind}`,
      body: entry.kind,
      timestamp: new Date(entry.at),
      attributes: ledgerLogAttributes(entry),
    });
  }

  status(): TelemetryStatus {
    const settings = this.#settings;
    const signals: TelemetryStatus['signals'] = {};
    for (const signal of SIGNALS) {
      signals[signal] = { endpoint: settings.urls[signal] ?? 'from OTEL_EXPORTER_OTLP_*', protocol: settings.protocol[signal], ...this.#delivery[signal].counts() };
    }
    return { enabled: true, signals, headers: Object.keys(settings.headers ?? {}), sampling: settings.sampling };
  }

  /** Sends what is queued now (tests, and before a clean exit). */
  async flush(): Promise<void> {
    await Promise.all([this.#tracerProvider.forceFlush(), this.#loggerProvider.forceFlush(), this.#meterProvider.forceFlush()]);
  }

  /** Sends what is queued, within a bound, and stops. */
  async shutdown(): Promise<void> {
    const within = (promise: Promise<void>) => Promise.race([promise.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    await Promise.all([within(this.#tracerProvider.shutdown()), within(this.#loggerProvider.shutdown()), within(this.#meterProvider.shutdown())]);
  }
}
