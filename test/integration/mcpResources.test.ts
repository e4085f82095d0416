/**
 * server-everything's resources, resource templates, subscriptions, prompts and completions
 * through the real gateway: in the catalog, over HTTP for the operator, and over `/mcp` for an
 * agent with and without grants; every read and get on record with digests only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapstanEvent } from '../../shared/events';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { connectHttp, connectStdio, type McpTestClient } from '../support/mcpClient';
import { CLI } from '../support/serveProcess';
import { PinStore } from '../../electron/store/pinStore';
import { everythingStdio, send, waitFor, waitForProvider, type Json } from '../support/mcp';

const ARCHITECTURE = 'demo://resource/static/document/architecture.md';
const TEXT_TEMPLATE = 'demo://resource/dynamic/text/{resourceId}';

describe('MCP resources and prompts through the gateway (server-everything over stdio)', () => {
  let gateway: TestGateway;
  let granted: string;
  let ungranted: string;
  const open: McpTestClient[] = [];
  const events: CapstanEvent[] = [];

  beforeAll(async () => {
    gateway = await startTestGateway({
      config: {
        mcpServers: { everything: everythingStdio() },
        // Only the agent "reader" may read this server's resources and get its prompts.
        agentGrants: [
          { pattern: 'builtin:note_*', authority: 'none' },
          { pattern: 'builtin:todo_*', authority: 'none' },
        ],
      },
    });
    gateway.host.events.subscribe((event) => events.push(event));
    await waitForProvider(gateway.host, 'everything');
    const token = async (name: string) => ((await (await gateway.request('/agents', { method: 'POST', body: { name } })).json()) as { token: string }).token;
    granted = await token('reader');
    ungranted = await token('outsider');
  }, 60_000);
  afterAll(async () => {
    await Promise.all(open.map((client) => client.close().catch(() => undefined)));
    await gateway?.stop();
  });

  const agent = async (token: string) => {
    const client = await connectHttp(gateway.url, token);
    open.push(client);
    return client;
  };

  it('holds each resource, template and prompt as a capability of its own kind, named per server', async () => {
    const { body } = await send(gateway, 'GET', '/catalog');
    const contracts = (body.capabilities as Json[]).map((entry) => entry.contract).filter((contract) => contract.provider === 'everything');
    const doc = contracts.find((contract) => contract.kind === 'resource' && contract.uri === ARCHITECTURE);
    expect(doc).toMatchObject({ id: expect.stringMatching(/^everything:resource\.demo-resource-static-document-architecture\.md-[0-9a-f]{8}$/), mimeType: 'text/markdown', declaredName: 'architecture.md' });
    const template = contracts.find((contract) => contract.kind === 'resourceTemplate' && contract.uriTemplate === TEXT_TEMPLATE);
    expect(template).toMatchObject({ id: expect.stringMatching(/^everything:template\./), variables: ['resourceId'], title: 'Dynamic Text Resource' });
    expect(contracts.find((contract) => contract.id === 'everything:prompt.args-prompt')).toMatchObject({
      kind: 'prompt',
      arguments: [
        { name: 'city', required: true },
        { name: 'state', required: false },
      ],
    });
    const info = (body.providers as Json[]).find((provider) => provider.name === 'everything')!;
    expect(info.resources).toBeGreaterThanOrEqual(3);
    expect(info.prompts).toBe(4);
  });

  it('reads a resource over HTTP by URI and by id, recording digests and never the text', async () => {
    const read = await send(gateway, 'POST', '/resources/read', { uri: ARCHITECTURE, requestId: 'read-architecture' });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ requestId: 'read-architecture', uri: ARCHITECTURE, contents: [{ uri: ARCHITECTURE, mimeType: 'text/markdown', text: expect.stringContaining('#') }] });
    const text = read.body.contents[0].text as string;
    const entries = gateway.host.ledger.query({ requestId: 'read-architecture' });
    expect(entries.map((entry) => entry.kind)).toEqual(['call_started', 'call_finished']);
    expect(entries[0]!.details).toMatchObject({ operation: 'resources/read', uriDigest: gateway.host.ledger.digest(ARCHITECTURE), reference: { id: read.body.id } });
    expect(entries[1]!.details).toMatchObject({ status: 'ok', resultDigest: gateway.host.ledger.digest({ contents: read.body.contents }) });
    expect(JSON.stringify(entries)).not.toContain(text.slice(0, 40));
    expect(JSON.stringify(entries)).not.toContain(ARCHITECTURE);

    const byId = await send(gateway, 'POST', '/resources/read', { id: read.body.id });
    expect(byId.body.contents[0].text).toBe(text);
  });

  it('fills a template from its variables, with the server completing them', async () => {
    const { body } = await send(gateway, 'GET', '/resources?server=everything');
    const template = (body.templates as Json[]).find((candidate) => candidate.uriTemplate === TEXT_TEMPLATE)!;
    const completed = await send(gateway, 'POST', '/completions', { id: template.id, argument: { name: 'resourceId', value: '7' } });
    expect(completed.body).toMatchObject({ values: ['7'] });
    const read = await send(gateway, 'POST', '/resources/read', { id: template.id, variables: { resourceId: '7' } });
    expect(read.body).toMatchObject({ id: template.id, uri: 'demo://resource/dynamic/text/7', contents: [{ text: expect.stringContaining('Resource 7') }] });
    // A URI the template describes is read under the template's id too.
    const byUri = await send(gateway, 'POST', '/resources/read', { uri: 'demo://resource/dynamic/text/8' });
    expect(byUri.body).toMatchObject({ id: template.id, contents: [{ text: expect.stringContaining('Resource 8') }] });
    const missing = await send(gateway, 'POST', '/resources/read', { uri: 'demo://nothing/here' });
    expect(missing.body.error).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
  });

  it('gets a prompt with arguments and completes them, checking required ones first', async () => {
    const got = await send(gateway, 'POST', '/prompts/get', { name: 'args-prompt', arguments: { city: 'Lisbon', state: 'PT' }, requestId: 'prompt-args' });
    expect(got.body).toMatchObject({ id: 'everything:prompt.args-prompt', messages: [{ role: 'user', content: { type: 'text', text: "What's weather in Lisbon, PT?" } }] });
    const [started, finished] = gateway.host.ledger.query({ requestId: 'prompt-args' });
    expect(started!.details).toMatchObject({ operation: 'prompts/get', argumentsDigest: gateway.host.ledger.digest({ city: 'Lisbon', state: 'PT' }) });
    expect(finished!.details).toMatchObject({ status: 'ok', resultDigest: expect.any(String) });
    expect(JSON.stringify([started, finished])).not.toContain('Lisbon');

    const missing = await send(gateway, 'POST', '/prompts/get', { name: 'args-prompt', arguments: {} });
    expect(missing.body.error).toMatchObject({ code: 'ARGUMENT_MISSING', field: 'city' });
    const completed = await send(gateway, 'POST', '/completions', { id: 'everything:prompt.completable-prompt', argument: { name: 'name', value: '' }, context: { department: 'Sales' } });
    expect(completed.body.values).toEqual(['David', 'Eve', 'Frank']);
  });

  it('follows a resource: the server notifies, the gateway publishes resourceUpdated', async () => {
    const { body } = await send(gateway, 'GET', '/resources');
    const doc = (body.resources as Json[]).find((resource) => resource.uri === ARCHITECTURE)!;
    const subscribed = await send(gateway, 'POST', '/resources/subscriptions', { id: doc.id, subscribed: true });
    expect(subscribed.body).toEqual({ subscribed: [doc.id] });
    // server-everything sends updates for subscribed URIs once its simulation is switched on.
    await gateway.call({ tool: 'everything:toggle-subscriber-updates' });
    await waitFor('a resourceUpdated event', () => events.find((event) => event.type === 'resourceUpdated' && event.id === doc.id), 15_000);
    // A second window follows it too: the first one stopping leaves it followed for the second.
    await send(gateway, 'POST', '/resources/subscriptions', { id: doc.id, subscribed: true });
    expect((await send(gateway, 'POST', '/resources/subscriptions', { id: doc.id, subscribed: false })).body).toEqual({ subscribed: [doc.id] });
    const stopped = await send(gateway, 'POST', '/resources/subscriptions', { id: doc.id, subscribed: false });
    expect(stopped.body).toEqual({ subscribed: [] });
  });

  it('gives an agent none of them by default: empty lists over /mcp, a read refused and recorded', async () => {
    const client = await agent(ungranted);
    expect((await client.client.listResources()).resources).toEqual([]);
    expect((await client.client.listPrompts()).prompts).toEqual([]);
    await expect(client.client.readResource({ uri: ARCHITECTURE })).rejects.toThrow(/not found/i);
    // By id the resource is named outright: the grant refuses it, on record.
    const { body } = await send(gateway, 'GET', '/resources');
    const id = (body.resources as Json[]).find((resource) => resource.uri === ARCHITECTURE)!.id as string;
    await expect(client.client.readResource({ uri: `capstan:resource/${id}` })).rejects.toThrow(/NOT_GRANTED/);
    const refused = gateway.host.ledger.query({ capability: id, principal: 'agent:outsider', kind: 'call_finished' });
    expect(refused.at(-1)?.details).toMatchObject({ status: 'refused', code: 'NOT_GRANTED' });
    // Its tools stay granted as before.
    expect((await client.call('capability_call', {})).isError).toBe(true);
  });

  it('lets an agent granted read and get list, read, get and complete over /mcp, each read on record', async () => {
    // config.json's agentGrants, edited live: read for the resources and templates, get for the prompts
    // (for every agent: grants name capabilities, not agents; taken back after the relay's test).
    gateway.host.config.agentGrants = [
      ...gateway.host.config.agentGrants,
      { pattern: 'everything:resource.*', authority: 'read' },
      { pattern: 'everything:template.*', authority: 'read' },
      { pattern: 'everything:prompt.*', authority: 'get' },
    ];
    const client = await agent(granted);
    const { resources } = await client.client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain(ARCHITECTURE);
    const { resourceTemplates } = await client.client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toContain(TEXT_TEMPLATE);
    const read = await client.client.readResource({ uri: ARCHITECTURE });
    expect(read.contents[0]).toMatchObject({ uri: ARCHITECTURE, mimeType: 'text/markdown' });
    const dynamic = await client.client.readResource({ uri: 'demo://resource/dynamic/text/3' });
    expect(dynamic.contents[0]).toMatchObject({ text: expect.stringContaining('Resource 3') });

    const { prompts } = await client.client.listPrompts();
    expect(prompts.map((prompt) => prompt.name).sort()).toEqual(['args-prompt', 'completable-prompt', 'resource-prompt', 'simple-prompt']);
    const got = await client.client.getPrompt({ name: 'args-prompt', arguments: { city: 'Oslo' } });
    expect(got.messages[0]).toMatchObject({ role: 'user', content: { type: 'text', text: "What's weather in Oslo?" } });
    const completion = await client.client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'S' } });
    expect(completion.completion.values).toEqual(['Sales', 'Support']);

    const reads = gateway.host.ledger.query({ principal: 'agent:reader', kind: 'call_finished' });
    expect(reads.filter((entry) => entry.details.status === 'ok' && typeof entry.details.resultDigest === 'string').length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(reads)).not.toContain('Oslo');
  });

  it('pins templates and prompts as tools are: one that no longer says what was pinned is held, refused until accepted', async () => {
    const id = 'everything:prompt.simple-prompt';
    const store = new PinStore(gateway.host.db);
    const pinned = store.of('everything').get('prompt.simple-prompt')!;
    expect(pinned.descriptor).toMatchObject({ name: 'simple-prompt', description: 'A prompt with no arguments' });
    expect(store.of('everything').has(`template.${(await send(gateway, 'GET', '/resources')).body.templates[0].id.split(':template.')[1]}`)).toBe(true);
    // What the server said when it was pinned differs from what it says now: as if it changed the prompt's description.
    store.save([{ ...pinned, hash: '0'.repeat(64), descriptor: { ...pinned.descriptor, description: 'Before' } }]);
    await gateway.host.catalog.reload('everything');
    expect(gateway.host.catalog.live(id)?.held).toMatchObject({ kind: 'changed', changed: ['description'] });
    const refused = await send(gateway, 'POST', '/prompts/get', { id });
    expect(refused.body.error).toMatchObject({ code: 'CONTRACT_CHANGED' });
    expect((await send(gateway, 'GET', '/prompts')).body.prompts.map((prompt: Json) => prompt.id)).not.toContain(id);
    const held = gateway.host.catalog.live(id)!.held!;
    await send(gateway, 'POST', '/pins/accept', { id, hash: held.currentHash });
    const got = await send(gateway, 'POST', '/prompts/get', { id });
    expect(got.body, JSON.stringify(got.body)).toMatchObject({ messages: [expect.anything()] });
  });

  it('relays the same through `capstan mcp` (the built CLI), under the agent token and its grants', async () => {
    const relay = await connectStdio(process.execPath, [CLI, 'mcp', '--data-dir', gateway.dataDir], { PATH: process.env.PATH ?? '', CAPSTAN_TOKEN: granted });
    open.push(relay);
    expect((await relay.client.listResources()).resources.map((resource) => resource.uri)).toContain(ARCHITECTURE);
    const read = await relay.client.readResource({ uri: ARCHITECTURE });
    expect(read.contents[0]).toMatchObject({ uri: ARCHITECTURE, text: expect.any(String) });
    const got = await relay.client.getPrompt({ name: 'simple-prompt' });
    expect(got.messages[0]).toMatchObject({ content: { text: 'This is a simple prompt without arguments.' } });
    gateway.host.config.agentGrants = gateway.host.config.agentGrants.filter((grant) => !grant.pattern.startsWith('everything:'));
    const refused = await connectStdio(process.execPath, [CLI, 'mcp', '--data-dir', gateway.dataDir], { PATH: process.env.PATH ?? '', CAPSTAN_TOKEN: ungranted });
    open.push(refused);
    expect((await refused.client.listPrompts()).prompts).toEqual([]);
    await expect(refused.client.getPrompt({ name: 'simple-prompt' })).rejects.toThrow(/PROMPT_NOT_FOUND/);
  });
});
