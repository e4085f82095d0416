/**
 * Two MCP servers listing the same URIs (two copies of server-everything): each resource keeps an
 * id of its own server's, a read by URI alone is refused as ambiguous rather than guessed, and an
 * agent over /mcp sees each shared URI as `capstan:resource/<id>`, which reads that one resource.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AGENT_GRANTS } from '../../electron/config';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { connectHttp, type McpTestClient } from '../support/mcpClient';
import { everythingStdio, send, waitForProvider, type Json } from '../support/mcp';

const ARCHITECTURE = 'demo://resource/static/document/architecture.md';

describe('one URI on two servers', () => {
  let gateway: TestGateway;
  let agent: McpTestClient;
  beforeAll(async () => {
    gateway = await startTestGateway({
      config: {
        mcpServers: { left: everythingStdio(), right: everythingStdio() },
        agentGrants: [...DEFAULT_AGENT_GRANTS, { pattern: '*', authority: 'read', kind: 'resource' }, { pattern: '*', authority: 'get', kind: 'prompt' }],
      },
    });
    await Promise.all([waitForProvider(gateway.host, 'left'), waitForProvider(gateway.host, 'right')]);
    const { token } = (await (await gateway.request('/agents', { method: 'POST', body: { name: 'reader' } })).json()) as { token: string };
    agent = await connectHttp(gateway.url, token);
  }, 60_000);
  afterAll(async () => {
    await agent?.close();
    await gateway?.stop();
  });

  it('names each copy by its server and refuses to guess which one a bare URI means', async () => {
    const { body } = await send(gateway, 'GET', '/resources');
    const copies = (body.resources as Json[]).filter((resource) => resource.uri === ARCHITECTURE);
    expect(copies.map((resource) => resource.server).sort()).toEqual(['left', 'right']);
    expect(copies[0]!.id).not.toBe(copies[1]!.id);
    expect(copies.map((resource) => (resource.id as string).split(':')[1])).toEqual([expect.any(String), (copies[0]!.id as string).split(':')[1]]);

    const ambiguous = await send(gateway, 'POST', '/resources/read', { uri: ARCHITECTURE, requestId: 'ambiguous-read' });
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body.error).toMatchObject({ code: 'RESOURCE_AMBIGUOUS' });
    // Nothing was read, so nothing is on record.
    expect(gateway.host.ledger.query({ requestId: 'ambiguous-read' })).toEqual([]);
    const fromRight = await send(gateway, 'POST', '/resources/read', { uri: ARCHITECTURE, server: 'right' });
    expect(fromRight.body).toMatchObject({ id: copies.find((resource) => resource.server === 'right')!.id, contents: [{ uri: ARCHITECTURE }] });
    const byPrompt = await send(gateway, 'POST', '/prompts/get', { name: 'simple-prompt' });
    expect(byPrompt.body.error).toMatchObject({ code: 'RESOURCE_AMBIGUOUS' });
  });

  it('lists a shared URI to an agent as capstan:resource/<id>, which reads that copy', async () => {
    const { resources } = await agent.client.listResources();
    const qualified = resources.filter((resource) => resource.uri.startsWith('capstan:resource/') && resource.name === 'architecture.md').map((resource) => resource.uri);
    expect(qualified.sort()).toEqual(['left', 'right'].map((server) => expect.stringMatching(new RegExp(`^capstan:resource/${server}:resource\\.`))));
    const read = await agent.client.readResource({ uri: qualified[0]! });
    expect(read.contents[0]).toMatchObject({ uri: qualified[0], mimeType: 'text/markdown', text: expect.any(String) });
    // A prompt name both servers use is listed under each copy's id.
    const { prompts } = await agent.client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(expect.arrayContaining(['left:prompt.simple-prompt', 'right:prompt.simple-prompt']));
    const got = await agent.client.getPrompt({ name: 'right:prompt.simple-prompt' });
    expect(got.messages).toHaveLength(1);
  });
});
