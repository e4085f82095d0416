/**
 * docs/telemetry.md and its compose files say what Capstan sends and how to receive it. The
 * compose file cannot run here (Docker and its images are out of reach), so this checks it is
 * consistent with itself and with the page, and that the page names every metric and attribute
 * the code emits.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Meter } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { LEDGER_ATTRIBUTES } from '../../electron/telemetry/ledgerStream';
import { createCapstanMetrics } from '../../electron/telemetry/metrics';
import { SPAN_ATTRIBUTES } from '../../electron/telemetry/trace';

const docs = (path: string) => fileURLToPath(new URL(`../../docs/${path}`, import.meta.url));
const page = readFileSync(docs('telemetry.md'), 'utf8');
type Yaml = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const compose = parse(readFileSync(docs('telemetry/compose.yaml'), 'utf8')) as Yaml;
const collector = parse(readFileSync(docs('telemetry/collector.yaml'), 'utf8')) as Yaml;

describe('the telemetry compose files', () => {
  it('publish only loopback ports, mount files that exist, and receive OTLP/HTTP where the page says', () => {
    for (const [name, service] of Object.entries(compose.services as Yaml)) {
      for (const port of (service.ports ?? []) as string[]) expect(port, name).toMatch(/^127\.0\.0\.1:/);
      for (const volume of (service.volumes ?? []) as string[]) {
        const [source] = volume.split(':');
        if (source!.endsWith('.yaml')) expect(existsSync(docs(`telemetry/${source}`)), volume).toBe(true);
      }
    }
    expect(collector.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
    expect(compose.services.collector.ports).toContain('127.0.0.1:4318:4318');
    expect(page).toContain('OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318');
  });

  it('route each signal to a defined exporter, on hosts the compose file runs', () => {
    const services = new Set(Object.keys(compose.services as Yaml));
    for (const [signal, pipeline] of Object.entries(collector.service.pipelines as Yaml)) {
      for (const exporter of pipeline.exporters as string[]) expect(collector.exporters, `${signal} → ${exporter}`).toHaveProperty([exporter]);
    }
    expect(services.has(String(collector.exporters['otlp/jaeger'].endpoint).split(':')[0]!)).toBe(true);
    expect(services.has(new URL(collector.exporters['otlphttp/loki'].endpoint).hostname)).toBe(true);
    // The ledger file lands in the mounted ./out, where the page tells `verify --against` to look.
    expect(collector.exporters['file/ledger']).toMatchObject({ path: '/out/ledger.jsonl', format: 'json' });
    expect(compose.services.collector.volumes).toContain('./out:/out');
    expect(page).toContain('capstan ledger verify --against docs/telemetry/out/ledger.jsonl');
    const prometheus = parse(readFileSync(docs('telemetry/prometheus.yaml'), 'utf8')) as Yaml;
    expect(prometheus.scrape_configs[0].static_configs[0].targets).toEqual([`collector:${String(collector.exporters.prometheus.endpoint).split(':')[1]}`]);
  });
});

describe('docs/telemetry.md', () => {
  it('names every metric Capstan creates', () => {
    const names: string[] = [];
    const instrument = (name: string) => {
      names.push(name);
      return { add: () => undefined, record: () => undefined, addCallback: () => undefined };
    };
    const meter = { createCounter: instrument, createHistogram: instrument, createObservableGauge: instrument } as unknown as Meter;
    createCapstanMetrics(meter).observe({ catalogSize: () => [], providerStates: () => [], approvalsPending: () => 0 });
    expect(names.length).toBeGreaterThanOrEqual(7);
    for (const name of names) expect(page, name).toContain(`\`${name}\``);
  });

  it('names every span and ledger attribute', () => {
    for (const name of [...Object.values(SPAN_ATTRIBUTES), ...Object.values(LEDGER_ATTRIBUTES)]) expect(page, name).toContain(`\`${name}\``);
  });
});
