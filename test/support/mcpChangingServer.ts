/**
 * A small MCP server (SDK v2, stdio, both protocol eras) whose prompts and resources change, for
 * how Capstan hears of it on a 2026-07-28 connection (subscriptions/listen) as well as on a 2025
 * one: `node test/support/mcpChangingServer.ts`.
 *
 * - the prompt `grow` adds a prompt `extra-<n>` each time it is got, and announces the change
 *   (notifications/prompts/list_changed);
 * - the resource `changing://counter` counts up every 200 ms and announces each update
 *   (notifications/resources/updated) to whoever subscribed to it.
 */
import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const COUNTER = 'changing://counter';
let extras = 0;
let count = 0;
const live = new Set<Server>();
const text = (value: string) => ({ role: 'user' as const, content: { type: 'text' as const, text: value } });

function createServer(): Server {
  const server = new Server({ name: 'capstan-changing', version: '1.0.0' }, { capabilities: { prompts: { listChanged: true }, resources: { subscribe: true, listChanged: true } } });
  live.add(server);
  server.setRequestHandler('prompts/list', () => ({
    prompts: [{ name: 'grow', description: 'Adds a prompt each time it is got' }, ...Array.from({ length: extras }, (_, index) => ({ name: `extra-${index + 1}`, description: `Added by grow (${index + 1})` }))],
  }));
  server.setRequestHandler('prompts/get', async (request) => {
    if (request.params.name === 'grow') {
      extras += 1;
      for (const each of live) await each.sendPromptListChanged().catch(() => undefined);
      return { messages: [text(`now ${extras} extra prompts`)] };
    }
    return { messages: [text(request.params.name)] };
  });
  server.setRequestHandler('resources/list', () => ({ resources: [{ uri: COUNTER, name: 'counter', mimeType: 'text/plain' }] }));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));
  server.setRequestHandler('resources/read', () => ({ contents: [{ uri: COUNTER, mimeType: 'text/plain', text: `count ${count}` }] }));
  // 2025-era clients subscribe with these; 2026-07-28 ones listen (the SDK answers that itself).
  server.setRequestHandler('resources/subscribe', () => ({}));
  server.setRequestHandler('resources/unsubscribe', () => ({}));
  return server;
}

setInterval(() => {
  count += 1;
  for (const server of live) void server.sendResourceUpdated({ uri: COUNTER }).catch(() => undefined);
}, 200).unref();

serveStdio(createServer);
process.stderr.write('capstan changing server ready\n');
