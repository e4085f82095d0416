/**
 * OpenTelemetry export through the real gateway, received by an OTLP/HTTP receiver on loopback
 * that decodes with OpenTelemetry's own protobuf code (test/support/otlpReceiver.ts):
 * - an agent's MCP call that carried a `traceparent` in `_meta` is a trace continuing the
 *   caller's, and the provider call's span is the parent of the `traceparent` server-everything
 *   itself received (its stdin, copied by test/support/stdinTee.cjs);
 * - an agent's HTTP call that needs approval carries its `traceparent` header into the trace,
 *   with the approval wait as a span;
 * - ledger entries arrive as log records, in order, and `capstan ledger verify --against`
 *   accepts the stream the receiver wrote and rejects an altered one;
 * - a Harn run (the Harn driver, test/support/harnDriver.ts, standing in for Harn) is a span of
 *   the trace its starter sent, handed to the child as TRACEPARENT, and the parent of its calls;
 * - OTLP JSON works the same; with the receiver gone, calls still answer and Diagnostics counts
 *   what export lost.
 */
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cliProcess';
import { driverConfig } from '../support/harnDriver.runs';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { EVERYTHING, waitFor, waitForProvider, type Json } from '../support/mcp';
import { connectHttp, type McpTestClient } from '../support/mcpClient';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver';

const TEE = fileURLToPath(new URL('../support/stdinTee.cjs', import.meta.url));
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const HTTP_TRACE = '0af7651916cd43dd8448eb211c80319c';

const byName = (spans: ReceivedSpan[], name: string, kind?: number) => spans.filter((span) => span.name === name && (kind === undefined || span.kind === kind));

describe('telemetry over OTLP/HTTP protobuf', () => {
  let receiver: OtlpReceiver;
  let gw: TestGateway;
  let mcp: McpTestClient;
  let agentToken: string;
  let dir: string;
  let target: Server;
  let targetUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-telemetry-'));
    receiver = await startOtlpReceiver();
    target = createServer((_request, response) => response.writeHead(204).end());
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    gw = await startTestGateway({
      config: {
        telemetry: { endpoint: receiver.url, protocol: 'http/protobuf', resourceAttributes: { 'capstan.gateway.name': 'it-gateway' }, metricIntervalMs: 1_000 },
        mcpServers: { everything: { command: process.execPath, args: [TEE, join(dir, 'everything.stdin'), EVERYTHING, 'stdio'] } },
        httpCheck: { allow: ['127.0.0.1/32'] },
        harn: driverConfig(),
      },
    });
    await waitForProvider(gw.host, 'everything');
    const created = await gw.request('/agents', { method: 'POST', body: { name: 'otel-agent' } });
    agentToken = ((await created.json()) as { token: string }).token;
    mcp = await connectHttp(gw.url, agentToken);
  }, 60_000);

  afterAll(async () => {
    await mcp?.close();
    await gw?.stop();
    await receiver?.close();
    target?.closeAllConnections();
    await new Promise((resolve) => target?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('continues an MCP caller’s trace, and the provider call’s span is the parent of what server-everything received', async () => {
    const found = await mcp.call('capabilities_search', { query: 'echo' });
    const reference = (found.structuredContent!.items as Json[]).find((item) => item.reference.id === 'everything:echo')!.reference;
    expect((await mcp.call('tools_load', { reference })).isError).toBeFalsy();
    const result = await mcp.client.callTool({
      name: 'capability_call',
      arguments: { reference, arguments: { message: 'a-value-never-streamed' } },
      _meta: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
    });
    expect(result.isError).toBeFalsy();
    const requestId = (result.structuredContent as Json).requestId as string;
    // The requestId and the trace id lead to each other: in the answer and in the ledger.
    expect((result.structuredContent as Json).traceId).toBe(CALLER_TRACE);
    expect(gw.host.ledger.query({ requestId, kind: 'call_started', limit: 1 })[0]!.details.traceId).toBe(CALLER_TRACE);

    await gw.host.telemetry.flush();
    const spans = receiver.spans.filter((span) => span.traceId === CALLER_TRACE);
    const [server] = byName(spans, 'tools/call capability_call', 2).concat(byName(spans, `tools/call ${reference.id}`, 2));
    expect(server, JSON.stringify(spans.map((span) => span.name))).toBeDefined();
    expect(server!.parentSpanId).toBe(CALLER_SPAN);
    expect(server!.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'capstan.request_id': requestId,
      'capstan.principal': 'agent:otel-agent',
      'capstan.capability_id': 'everything:echo',
      'capstan.provider': 'everything',
      'capstan.risk': 'low',
      'capstan.outcome': 'ok',
    });
    const children = spans.filter((span) => span.parentSpanId === server!.spanId);
    expect(children.map((span) => span.name).sort()).toEqual(['capstan.ledger.flush', 'capstan.policy', server!.name].sort());
    const provider = children.find((span) => span.kind === 3)!;

    // What server-everything read on its stdin: the tools/call whose traceparent names the provider call's span.
    const received = readFileSync(join(dir, 'everything.stdin'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Json)
      .find((message) => message.method === 'tools/call' && message.params?._meta?.requestId === requestId);
    expect(received?.params._meta.traceparent).toBe(`00-${CALLER_TRACE}-${provider.spanId}-01`);

    // Discovery operations are spans too, named by their wire names.
    for (const name of ['capabilities_search', 'tools_load']) {
      expect(receiver.spans.find((span) => span.name === name)?.attributes, name).toMatchObject({ 'capstan.principal': 'agent:otel-agent', 'mcp.method.name': 'tools/call' });
    }
  });

  it('continues an HTTP caller’s traceparent header, with the approval wait as a span', async () => {
    const call = fetch(`${gw.url}/tools/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json', traceparent: `00-${HTTP_TRACE}-b7ad6b7169203331-01` },
      body: JSON.stringify({ tool: 'http_check', arguments: { url: `${targetUrl}/health`, method: 'HEAD' } }),
    });
    const approval = await waitFor('the approval', () => gw.host.approvals.list().pending[0]);
    gw.host.approvals.decide({ id: approval.id, decision: 'approve' });
    expect((await call).status).toBe(200);

    await gw.host.telemetry.flush();
    const spans = receiver.spans.filter((span) => span.traceId === HTTP_TRACE);
    const server = spans.find((span) => span.parentSpanId === 'b7ad6b7169203331')!;
    expect(server).toMatchObject({ name: 'tools/call http_check', attributes: { 'capstan.capability_id': 'builtin:http_check', 'capstan.risk': 'medium', 'capstan.outcome': 'ok' } });
    const approvalSpan = spans.find((span) => span.name === 'capstan.approval')!;
    expect(approvalSpan.parentSpanId).toBe(server.spanId);
    // It lasted as long as the agent waited for the operator: the provider call only began after it
    // (within the millisecond the SDK rounds a span's start to).
    const providerCall = spans.find((span) => span.kind === 3)!;
    const times = JSON.stringify(spans.map((span) => [span.name, span.kind, String(span.startNs), String(span.endNs)]));
    expect(providerCall.startNs + 1_000_000n >= approvalSpan.endNs, times).toBe(true);
  });

  it('says why a call failed by its code alone: what the caller sent or a tool answered stays out of every span', async () => {
    const trace = '5a1e7c0de0000000000000000000a11c';
    const refused = await fetch(`${gw.url}/tools/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json', traceparent: `00-${trace}-1111111111111111-01` },
      body: JSON.stringify({ tool: 'time_now', arguments: { timezone: 'ARGSECRET_tz_42' } }),
    });
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'ARGUMENT_INVALID', message: expect.stringContaining('ARGSECRET_tz_42') });
    await gw.host.telemetry.flush();
    const spans = receiver.spans.filter((span) => span.traceId === trace);
    expect(spans.length).toBeGreaterThan(0);
    expect(spans.find((span) => span.parentSpanId === '1111111111111111')?.status).toEqual({ code: 2, message: 'ARGUMENT_INVALID' });
    expect(JSON.stringify(spans, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value))).not.toContain('ARGSECRET');
  });

  it('makes a Harn run a span of its starter’s trace, handed to Harn as TRACEPARENT, with the script’s calls under it', async () => {
    const runTrace = '5e1f00d0c0ffee00aa11bb22cc33dd44';
    const transcript = join(dir, 'traced.jsonl');
    const script = join(dir, 'traced.harn');
    writeFileSync(script, JSON.stringify({ transcript, steps: [{ toolCall: 'time_now', args: { timezone: 'UTC' }, label: 'call' }] }));
    const started = await gw.request('/harn/runs', { method: 'POST', body: { script, sessionId: 'harn-traced' }, headers: { traceparent: `00-${runTrace}-aaaaaaaaaaaaaaaa-01` } });
    expect(started.status).toBe(200);
    const { id: taskId } = (await started.json()) as { id: string };
    await waitFor('the run to end', () => (['succeeded', 'failed'].includes(gw.host.tasks.get(taskId).state) ? true : undefined));
    expect(gw.host.tasks.get(taskId).state).toBe('succeeded');

    await gw.host.telemetry.flush();
    const spans = receiver.spans.filter((span) => span.traceId === runTrace);
    const run = spans.find((span) => span.name === 'harn.run traced.harn')!;
    expect(run, JSON.stringify(receiver.spans.filter((span) => span.name.startsWith('harn')).map((span) => [span.name, span.traceId, span.parentSpanId]))).toBeDefined();
    expect(run).toMatchObject({ parentSpanId: 'aaaaaaaaaaaaaaaa', attributes: { 'capstan.task_id': taskId, 'capstan.principal': 'agent:harn.traced', 'capstan.outcome': 'succeeded' } });
    const entries = readFileSync(transcript, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Json);
    expect(entries.find((entry) => entry.environment)?.environment).toEqual({ TRACEPARENT: `00-${runTrace}-${run.spanId}-01` });
    const call = spans.find((span) => span.name === 'tools/call time_now' && span.kind === 2)!;
    expect(call).toMatchObject({ parentSpanId: run.spanId, attributes: { 'capstan.principal': 'agent:harn.traced', 'capstan.outcome': 'ok' } });
  });

  it('streams every durable ledger entry as a log record, in order, and ledger verify --against checks the stream', async () => {
    await gw.host.ledger.durable();
    await gw.host.telemetry.flush();
    const lastSeq = gw.host.ledger.tail(1)[0]!.seq;
    await waitFor('every entry streamed', () => (receiver.logs.at(-1)?.attributes['capstan.ledger.seq'] === lastSeq ? true : undefined), 10_000);
    const seqs = receiver.logs.map((log) => log.attributes['capstan.ledger.seq'] as number);
    expect(seqs).toEqual(Array.from({ length: lastSeq }, (_, index) => index + 1));
    const finished = receiver.logs.find((log) => log.body === 'call_finished')!;
    expect(finished.eventName).toBe('capstan.ledger.call_finished');
    expect(JSON.parse(finished.attributes['capstan.ledger.details'] as string)).toMatchObject({ status: 'ok', resultDigest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // Digests only: the echoed message never leaves in the stream.
    expect(JSON.stringify(receiver.logs)).not.toContain('a-value-never-streamed');

    const stream = join(dir, 'stream.jsonl');
    writeFileSync(stream, `${receiver.logLines.join('\n')}\n`);
    const ok = await runCli(['ledger', 'verify', '--against', stream, '--data-dir', gw.dataDir]);
    expect(ok.stdout).toContain(`stream ok: ${lastSeq} entries match the ledger (entries #1 to #${lastSeq})`);
    expect(ok.code).toBe(0);

    // One digest changed in one record: the stream no longer holds the ledger's entry.
    const altered = join(dir, 'altered.jsonl');
    writeFileSync(altered, readFileSync(stream, 'utf8').replace(/resultDigest\\":\\"([0-9a-f])/, (_match, first: string) => `resultDigest\\":\\"${first === '0' ? '1' : '0'}`));
    const refused = await runCli(['ledger', 'verify', '--against', altered, '--data-dir', gw.dataDir]);
    expect(refused.stdout).toMatch(/stream DIFFERS at seq \d+: entry #\d+ was altered/);
    expect(refused.code).toBe(1);
  });

  it('sends the metrics: calls, latency, catalog size, provider connections, approvals, ledger flushes', async () => {
    await waitFor('metrics', () => (receiver.metricNames.has('capstan.calls') && receiver.metricNames.has('capstan.catalog.capabilities') ? true : undefined), 10_000);
    for (const name of ['capstan.calls', 'capstan.call.duration', 'capstan.catalog.capabilities', 'capstan.provider.connected', 'capstan.approvals.pending', 'capstan.approval.wait', 'capstan.ledger.flush.duration']) {
      expect(receiver.metricNames, name).toContain(name);
    }
    expect([...receiver.contentTypes.traces!]).toEqual(['application/x-protobuf']);
  });
});

describe('telemetry over OTLP/HTTP JSON, and a backend that is gone', () => {
  it('sends OTLP JSON when asked', async () => {
    const receiver = await startOtlpReceiver();
    const gw = await startTestGateway({ config: { telemetry: { endpoint: receiver.url, protocol: 'http/json' } } });
    try {
      const answer = await gw.call({ tool: 'time_now' });
      expect(answer.status).toBe(200);
      await gw.host.telemetry.flush();
      expect([...receiver.contentTypes.traces!]).toEqual(['application/json']);
      const span = receiver.spans.find((candidate) => candidate.name === 'tools/call time_now' && candidate.kind === 2)!;
      expect(span.attributes).toMatchObject({ 'capstan.capability_id': 'builtin:time_now', 'capstan.principal': 'operator', 'capstan.outcome': 'ok' });
      expect(receiver.logs.map((log) => log.body)).toEqual(expect.arrayContaining(['call_started', 'call_finished']));
    } finally {
      await gw.stop();
      await receiver.close();
    }
  });

  it('answers every call while the receiver is down, and Diagnostics says what export lost', async () => {
    // A port that was just free: nothing listens there.
    const gone = await startOtlpReceiver();
    await gone.close();
    const gw = await startTestGateway({ config: { telemetry: { endpoint: gone.url, maxQueueSize: 16 } } });
    try {
      const answers = await Promise.all(Array.from({ length: 40 }, () => gw.call({ tool: 'time_now' })));
      expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(200));
      const { signals } = gw.host.telemetry.status();
      expect(signals.traces!.dropped).toBeGreaterThan(0);
      await gw.host.telemetry.flush().catch(() => undefined);
      await waitFor('the failed export counted', () => (gw.host.telemetry.status().signals.traces!.failed > 0 ? true : undefined), 15_000);
      const diagnostics = await waitFor(
        'the telemetry diagnostic',
        () => gw.host.catalog.diagnostics().find((diagnostic) => diagnostic.reason.startsWith('Telemetry: spans') && diagnostic.reason.includes('not accepted')),
        15_000,
      );
      expect(diagnostics.reason).toMatch(/Telemetry: spans: \d+ dropped \(queue full\), \d+ not accepted by http:\/\/127\.0\.0\.1:\d+\/v1\/traces; 0 sent\. Calls are not slowed/);
    } finally {
      await gw.stop();
    }
  }, 30_000);
});
