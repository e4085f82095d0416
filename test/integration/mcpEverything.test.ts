/** server-everything as a real child process, over stdio and over Streamable HTTP on loopback, through the real gateway. */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapstanEvent } from '../../shared/events';
import { declaredCapabilities } from '../../electron/providers/mcp/clientSide';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { EVERYTHING, send, serverPid, startEverythingGateway, startEverythingHttp, waitFor, waitForProvider, type Json } from '../support/mcp';

const contractOf = (gateway: TestGateway, name: string) => gateway.host.catalog.live(`everything:${name}`)?.contract as Json;

describe('server-everything over stdio', () => {
  let gateway: TestGateway;
  let events: CapstanEvent[];
  beforeAll(async () => void ({ gateway, events } = await startEverythingGateway()), 60_000);
  afterAll(() => gateway?.stop());

  it('lists every tool with its schema and the annotations it declared, as the server shows them to a client declaring what Capstan declares', async () => {
    const direct = new Client({ name: 'test', version: '1' }, { capabilities: declaredCapabilities(true) });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
    const { tools } = await direct.listTools();
    await direct.close();
    expect(tools.length).toBeGreaterThan(10);
    for (const tool of tools) {
      const contract = contractOf(gateway, tool.name);
      expect(contract, tool.name).toMatchObject({ inputSchema: tool.inputSchema, declared: tool.annotations ?? null, title: tool.title ?? tool.name });
    }
    const info = gateway.host.catalog.providers().find((provider) => provider.name === 'everything')!;
    expect(info).toMatchObject({ kind: 'mcp', tools: tools.length, status: { state: 'ready', protocolVersion: '2025-11-25' } });
  });

  it('runs read-only echo and get-sum without confirmation', async () => {
    expect(contractOf(gateway, 'echo')).toMatchObject({ riskLevel: 'low', needConfirm: false, mutating: false });
    const echo = await gateway.call({ tool: 'everything:echo', arguments: { message: 'hello' } });
    expect(echo.body).toMatchObject({ ok: true, result: { content: [{ type: 'text', text: 'Echo: hello' }] } });
    const sum = await gateway.call({ tool: 'everything:get-sum', arguments: { a: 2, b: 3 } });
    expect(sum.body).toMatchObject({ ok: true, result: { content: [{ type: 'text', text: 'The sum of 2 and 3 is 5.' }] } });
    // Both ran through the one call path: in a task, with digests in the ledger.
    const finished = gateway.host.ledger.query({ requestId: sum.body.requestId as string, kind: 'call_finished' });
    expect(finished[0]?.details).toMatchObject({ status: 'ok', resultDigest: expect.any(String) });
  });

  it("keeps MCP's content blocks: images, resource links, embedded resources, structuredContent", async () => {
    const image = await gateway.call({ tool: 'everything:get-tiny-image' });
    expect((image.body.result as Json).content).toContainEqual(expect.objectContaining({ type: 'image', mimeType: 'image/png', data: expect.any(String) }));
    const links = await gateway.call({ tool: 'everything:get-resource-links', arguments: { count: 2 } });
    expect((links.body.result as Json).content).toContainEqual(expect.objectContaining({ type: 'resource_link', uri: expect.any(String) }));
    const embedded = await gateway.call({ tool: 'everything:get-resource-reference', arguments: { resourceType: 'Text', resourceId: 1 } });
    expect((embedded.body.result as Json).content).toContainEqual(expect.objectContaining({ type: 'resource', resource: expect.objectContaining({ uri: expect.any(String) }) }));
    const structured = await gateway.call({ tool: 'everything:get-structured-content', arguments: { location: 'Chicago' } });
    expect(structured.body.result).toMatchObject({ structuredContent: { temperature: expect.any(Number) } });
  });

  it('runs toggle-simulated-logging (not read-only, not destructive) as mutating, without confirmation', async () => {
    expect(contractOf(gateway, 'toggle-simulated-logging')).toMatchObject({ mutating: true, needConfirm: false, riskLevel: 'low' });
    const { body } = await gateway.call({ tool: 'everything:toggle-simulated-logging' });
    expect(body.ok).toBe(true);
    expect(gateway.host.ledger.query({ requestId: body.requestId as string, kind: 'call_started' })[0]?.details.mutating).toBe(true);
  });

  it('lists simulate-research-query (runs only as an MCP task) as runnable everywhere: Capstan calls it as a task (mcpTasks.test.ts)', async () => {
    const id = 'everything:simulate-research-query';
    const catalog = await send(gateway, 'GET', '/catalog');
    expect(catalog.body.capabilities.find((entry: Json) => entry.contract.id === id)?.contract).not.toHaveProperty('runnable');
    expect((await send(gateway, 'GET', '/tools')).body.tools.find((tool: Json) => tool.id === id)).not.toHaveProperty('runnable');
  });

  it('streams the long-running operation\'s progress and stops it on cancel', async () => {
    const task = (await send(gateway, 'POST', '/tasks', { action: 'start', sessionId: 'long', title: 'long run' })).body;
    const call = gateway.call({ tool: 'everything:trigger-long-running-operation', arguments: { duration: 30, steps: 60 }, sessionId: 'long', requestId: 'long-1' });
    await waitFor('two progress events', () => (events.filter((event) => event.type === 'progress' && event.requestId === 'long-1').length >= 2 ? true : undefined));
    const cancelled = await send(gateway, 'POST', `/tasks/${task.id}/cancel`);
    expect(cancelled.body.state).toBe('cancelled');
    const { body } = await call;
    expect(body.error?.code).toBe('CALL_CANCELLED');
    const seen = events.filter((event) => event.type === 'progress' && event.requestId === 'long-1').length;
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(events.filter((event) => event.type === 'progress' && event.requestId === 'long-1').length).toBe(seen);
  });

  it('gives an unknown outcome when the server is killed mid-call, and a reconnect brings its tools back', async () => {
    const call = gateway.call({ tool: 'everything:trigger-long-running-operation', arguments: { duration: 30, steps: 60 }, requestId: 'killed-1' });
    await waitFor('progress', () => events.find((event) => event.type === 'progress' && event.requestId === 'killed-1'));
    process.kill(serverPid(gateway.host, 'everything'), 'SIGKILL');
    const { status, body } = await call;
    expect(status).toBe(504);
    expect(body.error?.code).toBe('OUTCOME_UNKNOWN');
    expect(body.error?.message).toContain('lost its connection');
    const failed = await waitForProvider(gateway.host, 'everything', 'failed');
    expect(failed.reason).toBe('the server process exited');
    // Listed still, but unavailable until it is back.
    expect(contractOf(gateway, 'echo')).toBeDefined();
    const generation = gateway.host.catalog.live('everything:echo')!.bindingGeneration;
    expect((await send(gateway, 'POST', '/providers/everything/reconnect')).status).toBe(200);
    await waitForProvider(gateway.host, 'everything', 'ready');
    await waitFor('the new binding', () => (gateway.host.catalog.live('everything:echo')!.bindingGeneration > generation ? true : undefined));
    expect((await gateway.call({ tool: 'everything:echo', arguments: { message: 'back' } })).body.ok).toBe(true);
  });
});

describe('server-everything over Streamable HTTP (loopback)', () => {
  let gateway: TestGateway;
  let server: Awaited<ReturnType<typeof startEverythingHttp>>;
  beforeAll(async () => {
    server = await startEverythingHttp();
    gateway = await startTestGateway({ config: { mcpServers: { remote: { url: server.url, headers: { 'X-Api-Key': 'sk-test-0123456789abcdef' } } } } });
    await waitForProvider(gateway.host, 'remote');
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
    await server?.stop();
  });

  it('lists and runs its tools, with progress', async () => {
    const events: CapstanEvent[] = [];
    gateway.host.events.subscribe((event) => events.push(event));
    expect(gateway.host.catalog.providers().find((provider) => provider.name === 'remote')?.status?.protocolVersion).toBe('2025-11-25');
    expect((await gateway.call({ tool: 'remote:echo', arguments: { message: 'over http' } })).body).toMatchObject({ ok: true, result: { content: [{ text: 'Echo: over http' }] } });
    const { body } = await gateway.call({ tool: 'remote:trigger-long-running-operation', arguments: { duration: 1, steps: 4 }, requestId: 'http-long' });
    expect(body.ok).toBe(true);
    expect(events.filter((event) => event.type === 'progress' && event.requestId === 'http-long').length).toBeGreaterThanOrEqual(2);
  });

  it('fails a call while the server is down (nothing ran), and connects again once it is back on its port', async () => {
    const port = new URL(server.url).port;
    await server.stop();
    const { status, body } = await gateway.call({ tool: 'remote:echo', arguments: { message: 'anyone?' } });
    expect(status).toBe(503);
    expect(body.error?.code).toBe('PROVIDER_UNAVAILABLE');
    const failed = await waitForProvider(gateway.host, 'remote', 'failed');
    expect(failed.reason).toContain('ECONNREFUSED');
    // Secrets never reach a status: the header value is nowhere in it.
    expect(JSON.stringify(failed)).not.toContain('sk-test-0123456789abcdef');
    server = await startEverythingHttp(port);
    await waitForProvider(gateway.host, 'remote', 'ready', 40_000);
    expect((await gateway.call({ tool: 'remote:echo', arguments: { message: 'back' } })).body.ok).toBe(true);
  }, 60_000);
});
