/**
 * Issue 17 item 5: a loaded tool keeps, for agents, what its provider declared (title, icons,
 * outputSchema, every annotation), tightened and never loosened by what Capstan decided. The
 * fixture server (FIXTURE_FIDELITY) declares all of it on `forecast` and `archive`; config.json's
 * toolPolicy makes `archive` mutating and confirmed, which must show in its hints.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { connectHttp, type McpTestClient } from '../support/mcpClient';
import { fixtureStdio, send, waitForProvider, type Json } from '../support/mcp';

let gateway: TestGateway;
let agentToken: string;
const open: McpTestClient[] = [];

beforeAll(async () => {
  gateway = await startTestGateway({
    config: {
      mcpServers: { fixture: fixtureStdio({ FIXTURE_FIDELITY: '1' }) },
      toolPolicy: [{ pattern: 'fixture:archive', mutating: true, needConfirm: true }],
    },
  });
  await waitForProvider(gateway.host, 'fixture');
  agentToken = (await send(gateway, 'POST', '/agents', { name: 'fidelity' })).body.token as string;
}, 60_000);
afterAll(async () => {
  await Promise.all(open.map((client) => client.close().catch(() => undefined)));
  await gateway?.stop();
});

async function client(): Promise<McpTestClient> {
  const connected = await connectHttp(gateway.url, agentToken, 'legacy');
  open.push(connected);
  return connected;
}

const DECLARED_OUTPUT = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' }, conditions: { type: 'string', enum: ['sunny', 'rain'] } },
  required: ['city', 'temperature', 'conditions'],
};
const ICONS = [
  { src: expect.stringMatching(/^data:image\/svg\+xml;base64,/), mimeType: 'image/svg+xml', sizes: ['any'], theme: 'light' },
  { src: 'https://example.invalid/icon-48.png', mimeType: 'image/png', sizes: ['48x48'] },
];

async function discover(mcp: McpTestClient, name: string): Promise<Json> {
  const found = await mcp.call('capabilities_search', { query: name, provider: 'fixture' });
  const item = (found.structuredContent!.items as Json[]).find((candidate) => candidate.name === name);
  expect(item, name).toBeDefined();
  expect(item).not.toHaveProperty('runnable');
  return item!.reference as Json;
}

describe('loaded tools keep what their provider declared, tightened by Capstan', { timeout: 60_000 }, () => {
  it('capabilities_inspect: the contract as declared, and the hints an agent is told', async () => {
    const mcp = await client();
    const forecast = await mcp.call('capabilities_inspect', { reference: await discover(mcp, 'forecast') });
    expect(forecast.structuredContent).toMatchObject({
      contract: {
        title: 'The forecast tool',
        outputSchema: DECLARED_OUTPUT,
        icons: ICONS,
        declared: { title: 'forecast (annotation title)', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        mutating: false,
        needConfirm: false,
      },
      annotations: { title: 'forecast (annotation title)', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
    // archive declares the same, but config.json made it mutating and confirmed: never read-only, destructive.
    const archive = await mcp.call('capabilities_inspect', { reference: await discover(mcp, 'archive') });
    expect(archive.structuredContent).toMatchObject({
      contract: { mutating: true, needConfirm: true, tightenedBy: ['fixture:archive'], declared: { readOnlyHint: true, destructiveHint: false } },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    });
  });

  it("tools/list after tools_load (a 2025 session): title, icons, tightened hints, and the output schema where the provider's result sits", async () => {
    const mcp = await client();
    for (const name of ['forecast', 'archive']) {
      const loaded = await mcp.call('tools_load', { reference: await discover(mcp, name) });
      expect(loaded.isError, name).toBeFalsy();
    }
    const { tools } = await mcp.client.listTools();
    const forecast = tools.find((tool) => tool.name === 'forecast');
    expect(forecast).toMatchObject({
      title: 'The forecast tool',
      icons: ICONS,
      annotations: { title: 'forecast (annotation title)', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      outputSchema: { type: 'object', properties: { result: { properties: { structuredContent: DECLARED_OUTPUT } } }, required: ['ok', 'requestId', 'taskId', 'result'] },
    });
    expect(tools.find((tool) => tool.name === 'archive')).toMatchObject({
      title: 'The archive tool',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    });

    // The SDK checks structuredContent against the advertised outputSchema: the call passes it.
    const called = await mcp.call('forecast', { city: 'Lyon' });
    expect(called.isError).toBeFalsy();
    expect(called.structuredContent).toMatchObject({ ok: true, result: { structuredContent: { city: 'Lyon', temperature: 21.5, conditions: 'sunny' } } });

    // capability_call wraps whatever it runs: it claims no output schema, and takes any arguments object.
    const call = tools.find((tool) => tool.name === 'capability_call')!;
    expect(call.outputSchema).toBeUndefined();
    expect(call.inputSchema.properties!.arguments).toEqual({ type: 'object', additionalProperties: true, description: expect.any(String) });
  });
});
