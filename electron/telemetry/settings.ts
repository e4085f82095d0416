/**
 * Where Capstan's telemetry goes, if anywhere: off unless config.json's `telemetry` turns it on
 * or the standard OpenTelemetry variables name an OTLP endpoint. config.json wins over the
 * environment where both speak; `OTEL_SDK_DISABLED=true` turns it off whatever else says.
 * Headers (an API key for the backend, say) are secrets: they reach the exporters and nothing
 * else (status() reports their names only).
 */
import { z } from 'zod';

export const TelemetryProtocol = z.enum(['http/protobuf', 'http/json']);
export type TelemetryProtocol = z.infer<typeof TelemetryProtocol>;

export const TelemetryConfig = z.strictObject({
  /** Unset: on when an OTEL_EXPORTER_OTLP_*ENDPOINT variable is set. */
  enabled: z.boolean().optional(),
  /** The OTLP/HTTP base URL; signals go to /v1/traces, /v1/logs and /v1/metrics under it. */
  endpoint: z.url({ protocol: /^https?$/ }).optional(),
  protocol: TelemetryProtocol.optional(),
  headers: z.record(z.string().min(1).max(256), z.string().max(8192)).optional(),
  /** The share of new traces kept (a caller's sampled trace is always continued). */
  sampling: z.number().min(0).max(1).optional(),
  serviceName: z.string().min(1).max(256).optional(),
  /** Resource attributes, e.g. `{ "deployment.environment.name": "ops", "capstan.gateway.name": "jump-host" }`. */
  resourceAttributes: z.record(z.string().min(1).max(256), z.string().max(4096)).optional(),
  /** How often metrics are sent. */
  metricIntervalMs: z.number().int().min(1_000).max(3_600_000).optional(),
  /** Spans and log records waiting to be sent, per signal; past it new ones are dropped and counted. */
  maxQueueSize: z.number().int().min(16).max(1_000_000).optional(),
});
export type TelemetryConfig = z.infer<typeof TelemetryConfig>;

export type Signal = 'traces' | 'logs' | 'metrics';
export const SIGNALS: readonly Signal[] = ['traces', 'logs', 'metrics'];

export interface TelemetrySettings {
  /** Per signal, the full URL; undefined leaves it to the exporter, which reads OTEL_EXPORTER_OTLP_*. */
  urls: Record<Signal, string | undefined>;
  protocol: Record<Signal, TelemetryProtocol>;
  headers: Record<string, string> | undefined;
  sampling: number;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  metricIntervalMs: number;
  maxQueueSize: number;
}

export const DEFAULT_MAX_QUEUE = 2_048;
export const DEFAULT_METRIC_INTERVAL_MS = 60_000;

type Env = Record<string, string | undefined>;

const envSignal = (signal: Signal) => signal.toUpperCase();
const present = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

/** The settings to run with, or null when telemetry is off. */
export function resolveTelemetrySettings(config: TelemetryConfig | undefined, env: Env = process.env): TelemetrySettings | null {
  if (present(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return null;
  const envEndpoint = present(env.OTEL_EXPORTER_OTLP_ENDPOINT) ?? SIGNALS.map((signal) => present(env[`OTEL_EXPORTER_OTLP_${envSignal(signal)}_ENDPOINT`])).find(Boolean);
  const enabled = config?.enabled ?? (config?.endpoint !== undefined || envEndpoint !== undefined);
  if (!enabled) return null;

  const base = config?.endpoint?.replace(/\/+$/, '');
  const protocolOf = (signal: Signal): TelemetryProtocol => {
    const fromEnv = present(env[`OTEL_EXPORTER_OTLP_${envSignal(signal)}_PROTOCOL`]) ?? present(env.OTEL_EXPORTER_OTLP_PROTOCOL);
    const parsed = TelemetryProtocol.safeParse(config?.protocol ?? fromEnv);
    return parsed.success ? parsed.data : 'http/protobuf';
  };
  const sampling = config?.sampling ?? Number(present(env.OTEL_TRACES_SAMPLER_ARG) ?? 1);
  return {
    urls: { traces: base && `${base}/v1/traces`, logs: base && `${base}/v1/logs`, metrics: base && `${base}/v1/metrics` },
    protocol: { traces: protocolOf('traces'), logs: protocolOf('logs'), metrics: protocolOf('metrics') },
    headers: config?.headers,
    sampling: Number.isFinite(sampling) ? Math.min(1, Math.max(0, sampling)) : 1,
    serviceName: config?.serviceName ?? present(env.OTEL_SERVICE_NAME) ?? 'capstan',
    resourceAttributes: { ...parseResourceAttributes(env.OTEL_RESOURCE_ATTRIBUTES), ...config?.resourceAttributes },
    metricIntervalMs: config?.metricIntervalMs ?? (Number(present(env.OTEL_METRIC_EXPORT_INTERVAL)) || DEFAULT_METRIC_INTERVAL_MS),
    maxQueueSize: config?.maxQueueSize ?? DEFAULT_MAX_QUEUE,
  };
}

/** `key=value,key2=value2`, percent-decoded, as the OpenTelemetry specification writes OTEL_RESOURCE_ATTRIBUTES. */
function parseResourceAttributes(raw: string | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const pair of raw?.split(',') ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    try {
      attributes[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      // A malformed pair is skipped, as the SDK's own detector skips it.
    }
  }
  return attributes;
}
