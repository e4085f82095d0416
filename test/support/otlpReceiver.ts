/**
 * An OTLP/HTTP receiver on loopback, standing in for an OpenTelemetry Collector: it accepts
 * traces, logs and metrics as protobuf or JSON and decodes them with OpenTelemetry's own
 * generated protobuf code (otlp-protobufs: @opentelemetry/otlp-transformer 0.214, the last
 * release to ship it) or JSON.parse, into one plain shape for assertions. It also keeps each
 * logs request as OTLP JSON, one request per line, as the Collector's file exporter writes it.
 */
import { createRequire } from 'node:module';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ProtoType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
}
const root = createRequire(import.meta.url)('otlp-protobufs/build/src/generated/root.js') as {
  opentelemetry: { proto: { collector: Record<'trace' | 'logs' | 'metrics', { v1: Record<string, ProtoType> }> } };
};
const collector = root.opentelemetry.proto.collector;
const REQUEST_TYPES = {
  traces: collector.trace.v1.ExportTraceServiceRequest!,
  logs: collector.logs.v1.ExportLogsServiceRequest!,
  metrics: collector.metrics.v1.ExportMetricsServiceRequest!,
};

export type Attributes = Record<string, unknown>;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Attributes;
  status: { code: number; message?: string };
  startNs: bigint;
  endNs: bigint;
}

export interface ReceivedLog {
  body: unknown;
  eventName?: string;
  attributes: Attributes;
  traceId: string;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  logs: ReceivedLog[];
  metricNames: Set<string>;
  /** Each logs request in OTLP JSON, one a line: what `capstan ledger verify --against` reads. */
  logLines: string[];
  /** Content types seen per signal. */
  contentTypes: Record<string, Set<string>>;
  close(): Promise<void>;
}

const hex = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  return '';
};

function plain(value: Record<string, unknown> | undefined): unknown {
  if (!value) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  if ('arrayValue' in value) return ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(plain);
  return undefined;
}

const attributesOf = (list: unknown): Attributes =>
  Object.fromEntries(((list as { key: string; value: Record<string, unknown> }[] | undefined) ?? []).map(({ key, value }) => [key, plain(value)]));

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A decoded request as OTLP JSON would spell it: ids in hex, 64-bit numbers as strings. */
function decode(signal: keyof typeof REQUEST_TYPES, contentType: string, body: Buffer): Record<string, unknown> {
  if (contentType.startsWith('application/json')) return JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  const type = REQUEST_TYPES[signal];
  return type.toObject(type.decode(body), { longs: String, bytes: String, enums: Number, defaults: false });
}

/** Protobuf `bytes` come back base64 from toObject; OTLP JSON has ids in hex. */
const idHex = (value: unknown): string => (typeof value === 'string' && !/^[0-9a-f]*$/.test(value) ? Buffer.from(value, 'base64').toString('hex') : hex(value));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: Omit<OtlpReceiver, 'url' | 'close'> = { spans: [], logs: [], metricNames: new Set(), logLines: [], contentTypes: { traces: new Set(), logs: new Set(), metrics: new Set() } };
  const server: Server = createServer((request, response) => {
    void (async () => {
      const signal = ({ '/v1/traces': 'traces', '/v1/logs': 'logs', '/v1/metrics': 'metrics' } as const)[request.url ?? ''];
      if (request.method !== 'POST' || !signal) return response.writeHead(404).end();
      const contentType = request.headers['content-type'] ?? '';
      receiver.contentTypes[signal]!.add(contentType);
      const message = decode(signal, contentType, await bodyOf(request));
      if (signal === 'traces') {
        for (const resource of (message.resourceSpans as Record<string, unknown>[] | undefined) ?? [])
          for (const scope of (resource.scopeSpans as Record<string, unknown>[] | undefined) ?? [])
            for (const span of (scope.spans as Record<string, unknown>[] | undefined) ?? [])
              receiver.spans.push({
                traceId: idHex(span.traceId),
                spanId: idHex(span.spanId),
                parentSpanId: idHex(span.parentSpanId),
                name: span.name as string,
                kind: Number(span.kind ?? 0),
                attributes: attributesOf(span.attributes),
                status: (span.status as ReceivedSpan['status'] | undefined) ?? { code: 0 },
                startNs: BigInt((span.startTimeUnixNano as string | undefined) ?? 0),
                endNs: BigInt((span.endTimeUnixNano as string | undefined) ?? 0),
              });
      } else if (signal === 'logs') {
        receiver.logLines.push(JSON.stringify(message));
        for (const resource of (message.resourceLogs as Record<string, unknown>[] | undefined) ?? [])
          for (const scope of (resource.scopeLogs as Record<string, unknown>[] | undefined) ?? [])
            for (const record of (scope.logRecords as Record<string, unknown>[] | undefined) ?? [])
              receiver.logs.push({ body: plain(record.body as Record<string, unknown>), eventName: record.eventName as string | undefined, attributes: attributesOf(record.attributes), traceId: idHex(record.traceId) });
      } else {
        for (const resource of (message.resourceMetrics as Record<string, unknown>[] | undefined) ?? [])
          for (const scope of (resource.scopeMetrics as Record<string, unknown>[] | undefined) ?? [])
            for (const metric of (scope.metrics as Record<string, unknown>[] | undefined) ?? []) receiver.metricNames.add(metric.name as string);
      }
      response.writeHead(200, { 'content-type': contentType.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' }).end(contentType.startsWith('application/json') ? '{}' : undefined);
    })().catch((error: unknown) => response.writeHead(400).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ...receiver,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
