/**
 * The content the MCP conformance runner's resource and prompt scenarios read, as an MCP server
 * of its own (SDK v2, stdio, both protocol eras): `node test/support/conformanceContent.ts`.
 * conformance.test.ts puts it behind the gateway as the MCP server `fixtures`, with agentGrants
 * for its resources and prompts, so those scenarios run against /mcp end to end: through
 * Capstan's catalog, grants, call path and ledger to this server and back, as any agent's read.
 *
 * What each scenario asks for (the runner's descriptions): resources `test://static-text` (text)
 * and `test://static-binary` (a blob), the template `test://template/{id}/data` (its text names
 * the id), and the prompts `test_simple_prompt`, `test_prompt_with_arguments` (arg1, arg2),
 * `test_prompt_with_embedded_resource` (resourceUri) and `test_prompt_with_image`.
 */
import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

/** A 1×1 transparent PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain', description: 'A static text resource' },
  { uri: 'test://static-binary', name: 'static-binary', mimeType: 'image/png', description: 'A static binary resource' },
];
const TEMPLATE = { uriTemplate: 'test://template/{id}/data', name: 'template-data', mimeType: 'application/json', description: 'Data for an id' };

const PROMPTS = [
  { name: 'test_simple_prompt', description: 'A prompt without arguments' },
  {
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two arguments',
    arguments: [
      { name: 'arg1', description: 'The first', required: true },
      { name: 'arg2', description: 'The second', required: true },
    ],
  },
  { name: 'test_prompt_with_embedded_resource', description: 'A prompt embedding a resource', arguments: [{ name: 'resourceUri', description: 'The URI to embed', required: true }] },
  { name: 'test_prompt_with_image', description: 'A prompt with an image' },
];

function read(uri: string) {
  if (uri === 'test://static-text') return { contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] };
  if (uri === 'test://static-binary') return { contents: [{ uri, mimeType: 'image/png', blob: PNG }] };
  const id = /^test:\/\/template\/([^/]+)\/data$/.exec(uri)?.[1];
  if (id !== undefined) return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id: decodeURIComponent(id), templateTest: true, data: `Data for ID: ${id}` }) }] };
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource not found: ${uri}`);
}

function get(name: string, args: Record<string, string>) {
  const user = (content: unknown) => ({ role: 'user' as const, content: content as never });
  switch (name) {
    case 'test_simple_prompt':
      return { messages: [user({ type: 'text', text: 'This is a simple prompt for testing.' })] };
    case 'test_prompt_with_arguments':
      return { messages: [user({ type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` })] };
    case 'test_prompt_with_embedded_resource':
      return {
        messages: [
          user({ type: 'resource', resource: { uri: args.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } }),
          user({ type: 'text', text: 'Please process the embedded resource above.' }),
        ],
      };
    case 'test_prompt_with_image':
      return { messages: [user({ type: 'image', data: PNG, mimeType: 'image/png' }), user({ type: 'text', text: 'Please analyze the image above.' })] };
    default:
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt not found: ${name}`);
  }
}

function createServer(): Server {
  const server = new Server({ name: 'capstan-conformance-content', version: '1.0.0' }, { capabilities: { resources: {}, prompts: {} } });
  server.setRequestHandler('resources/list', () => ({ resources: RESOURCES }));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [TEMPLATE] }));
  server.setRequestHandler('resources/read', (request) => read(request.params.uri));
  server.setRequestHandler('prompts/list', () => ({ prompts: PROMPTS }));
  server.setRequestHandler('prompts/get', (request) => get(request.params.name, request.params.arguments ?? {}));
  return server;
}

serveStdio(createServer);
process.stderr.write('capstan conformance content server ready\n');
