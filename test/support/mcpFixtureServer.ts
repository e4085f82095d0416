/**
 * A small MCP server (SDK v2, stdio, both protocol eras) for what server-everything and
 * server-filesystem do not offer. Run as a child process: `node test/support/mcpFixtureServer.ts`.
 *
 * - `plain`: no annotations at all (Capstan must treat it as destructive: confirmation, high risk)
 * - `shape` and `reshape`: calling `reshape` adds a required argument to `shape` and sends
 *   notifications/tools/list_changed
 * - `stubborn`: ignores cancellation: it blocks the server's event loop for `ms`, so the server
 *   can neither answer nor acknowledge anything meanwhile
 * - `slow`: reports progress every `everyMs` for `steps` steps and stops when cancelled
 * - `fail`: answers with `isError: true`; `big`: a text of `bytes` bytes; `meta`: echoes the
 *   `_meta` it received (requestId, traceparent); `draft07`: a draft-07 schema with keywords
 *   strict 2020-12 would refuse; `exit`: the process exits mid-call
 * - `extra-1` … `extra-N` (FIXTURE_EXTRA_TOOLS, default 0) and FIXTURE_PAGE_SIZE (default 5):
 *   tools/list answers in pages, so a client must follow `nextCursor`
 * - FIXTURE_FIDELITY=1 adds `forecast` and `archive`, which declare a title, icons, an
 *   outputSchema (their structuredContent matches it) and every annotation (read-only, idempotent,
 *   closed world): what a loaded tool must keep for agents, tightened by Capstan
 * - FIXTURE_PINS_FILE adds `lookup`, `announce` and later `added`, described by a file a test
 *   rewrites: an MCP server changing what its tools say (pinnedTools below)
 * - FIXTURE_LATE_WRITE=1 adds `late_write`, a destructive tool that ignores cancellation yet keeps
 *   answering pings, then writes its file: a write that happens after its call was given up on
 * - FIXTURE_HOSTILE=1 adds schemas a hostile server could send (issue 18): `redos` (a `pattern`
 *   that backtracks catastrophically in JavaScript), `redos_keys` (the same as a
 *   `patternProperties` name), `backreference` (a pattern RE2 cannot take) and `deep` (an input
 *   schema nested 500 levels deep); each echoes what it was given. And the same in outputSchemas:
 *   `redos_output`, `backreference_output` and `deep_output` answer their argument `q` as
 *   structuredContent `{ q }`, so a caller can make the server answer what backtracks
 * - FIXTURE_EXIT_ON_PROBE=1: a 2025-only server that exits when its first request is not
 *   `initialize`, as servers on some SDKs do when probed for the 2026-07-28 revision
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';

type Json = Record<string, unknown>;
interface FixtureTool {
  name: string;
  description: string;
  title?: string;
  inputSchema: Json;
  outputSchema?: Json;
  annotations?: Json;
  icons?: Json[];
  run(args: Json, ctx: { signal: AbortSignal; meta: Json | undefined; progress(progress: number, total: number): Promise<void> }): Promise<Json> | Json;
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/**
 * FIXTURE_PINS_FILE: tools whose descriptors a test rewrites between listings, through a JSON file
 * read at every tools/list (so a change also holds across a restart of this server): `lookup`
 * with the file's `description` and, when `unit` is set, a required `unit` argument; `added`
 * when `added` is set; and `announce`, which sends notifications/tools/list_changed.
 */
interface PinsState {
  description?: string;
  unit?: boolean;
  added?: boolean;
  name?: string;
  instructions?: string;
}

function pinsState(): PinsState {
  if (!process.env.FIXTURE_PINS_FILE) return {};
  try {
    return JSON.parse(readFileSync(process.env.FIXTURE_PINS_FILE, 'utf8')) as PinsState;
  } catch {
    return {}; // No file yet: the first descriptors.
  }
}

function pinnedTools(): FixtureTool[] {
  const state = pinsState();
  const lookup: FixtureTool = {
    name: state.name ?? 'lookup',
    description: state.description ?? 'Looks a word up in the glossary.',
    inputSchema: state.unit ? object({ word: { type: 'string' }, unit: { type: 'string' } }, ['word', 'unit']) : object({ word: { type: 'string' } }, ['word']),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: (args) => text(`lookup ${String(args.word)}`),
  };
  const announce: FixtureTool = {
    name: 'announce',
    description: 'Announces that the tool list changed',
    inputSchema: object({}),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async () => {
      await live?.sendToolListChanged();
      return text('announced');
    },
  };
  const added: FixtureTool = { name: 'added', description: 'A tool that appeared later', inputSchema: object({}), annotations: { readOnlyHint: true, openWorldHint: false }, run: () => text('added') };
  return [lookup, announce, ...(state.added ? [added] : [])];
}
const object = (properties: Json, required: string[] = []): Json => ({ type: 'object', properties, required });

/** FIXTURE_HOSTILE's tools: schemas meant to freeze or crash whoever checks arguments against them. */
function hostile(): FixtureTool[] {
  const echo = (args: Json) => text(`got ${JSON.stringify(args).length} characters`);
  const annotations = { readOnlyHint: true, openWorldHint: false };
  let deep: Json = { type: 'string' };
  for (let level = 0; level < 500; level++) deep = object({ next: deep });
  // Answers `q` back as its structuredContent, so the caller decides what the outputSchema is checked against.
  const answer = (args: Json) => ({ ...text('answered'), structuredContent: { q: String(args.q) } });
  const output = (pattern: string) => object({ q: { type: 'string', pattern } }, ['q']);
  return [
    { name: 'redos', description: 'A pattern JavaScript backtracks on', inputSchema: object({ q: { type: 'string', pattern: '^(a+)+$' } }, ['q']), annotations, run: echo },
    {
      name: 'redos_keys',
      description: 'The same pattern, naming properties',
      inputSchema: { type: 'object', patternProperties: { '^(a+)+$': { type: 'number' } }, additionalProperties: false },
      annotations,
      run: echo,
    },
    { name: 'backreference', description: 'A pattern RE2 cannot take', inputSchema: object({ q: { type: 'string', pattern: '^(a+)\\1$' } }), annotations, run: echo },
    { name: 'deep', description: 'An input schema 500 levels deep', inputSchema: deep, annotations, run: echo },
    {
      name: 'redos_output',
      description: 'The backtracking pattern in its outputSchema; answers q as structuredContent',
      inputSchema: object({ q: { type: 'string' } }, ['q']),
      outputSchema: output('^(a+)+$'),
      annotations,
      run: answer,
    },
    {
      name: 'backreference_output',
      description: 'A pattern RE2 cannot take, in its outputSchema',
      inputSchema: object({ q: { type: 'string' } }, ['q']),
      outputSchema: output('^(a+)\\1$'),
      annotations,
      run: answer,
    },
    { name: 'deep_output', description: 'An outputSchema 500 levels deep', inputSchema: object({ q: { type: 'string' } }), outputSchema: deep, annotations, run: answer },
  ];
}
let shapeNeedsUnit = false;
let live: Server | undefined;

const tools = (): FixtureTool[] => [
  { name: 'plain', description: 'A tool whose server declares no annotations', inputSchema: object({ text: { type: 'string' } }), run: (args) => text(`plain: ${String(args.text)}`) },
  {
    name: 'shape',
    description: 'Its schema changes when reshape is called',
    inputSchema: shapeNeedsUnit ? object({ size: { type: 'number' }, unit: { type: 'string' } }, ['size', 'unit']) : object({ size: { type: 'number' } }, ['size']),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: (args) => text(`shape ${JSON.stringify(args)}`),
  },
  {
    name: 'reshape',
    description: 'Adds a required unit to shape and announces the change',
    inputSchema: object({}),
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    run: async () => {
      shapeNeedsUnit = true;
      await live?.sendToolListChanged();
      return text('reshaped');
    },
  },
  {
    name: 'stubborn',
    description: 'Ignores cancellation: blocks its server for ms milliseconds',
    inputSchema: object({ ms: { type: 'number' } }, ['ms']),
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    run: (args) => {
      const until = Date.now() + Number(args.ms);
      while (Date.now() < until) {
        // Busy: nothing else on this server runs, not even a ping.
      }
      return text('stubborn finished');
    },
  },
  {
    name: 'slow',
    description: 'Reports progress every everyMs for steps steps; stops when cancelled',
    inputSchema: object({ steps: { type: 'number' }, everyMs: { type: 'number' } }, ['steps', 'everyMs']),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async (args, { signal, progress }) => {
      const steps = Number(args.steps);
      for (let step = 1; step <= steps; step += 1) {
        await new Promise((resolve) => setTimeout(resolve, Number(args.everyMs)));
        signal.throwIfAborted();
        await progress(step, steps);
      }
      return text(`slow finished ${steps} steps`);
    },
  },
  {
    name: 'fail',
    description: 'Answers with isError',
    inputSchema: object({}),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: () => ({ ...text('the fixture failed on purpose'), isError: true }),
  },
  {
    name: 'big',
    description: 'Answers with a text of the given size',
    inputSchema: object({ bytes: { type: 'number' } }, ['bytes']),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: (args) => text('x'.repeat(Number(args.bytes))),
  },
  {
    name: 'meta',
    description: 'Echoes the _meta its call carried',
    inputSchema: object({}),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: (_args, { meta }) => ({ ...text('meta'), structuredContent: { meta: meta ?? null } }),
  },
  {
    name: 'draft07',
    description: 'A draft-07 input schema with keywords strict 2020-12 refuses',
    inputSchema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { count: { type: 'integer', minimum: 1, 'x-unit': 'items', example: 3 } },
      required: ['count'],
      additionalProperties: false,
      definitions: { unused: { type: 'string' } },
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: (args) => text(`count ${String(args.count)}`),
  },
  {
    name: 'exit',
    description: 'The server exits mid-call',
    inputSchema: object({}),
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    run: () => {
      setTimeout(() => process.exit(3), 50);
      return new Promise(() => {});
    },
  },
  ...(process.env.FIXTURE_FIDELITY ? ['forecast', 'archive'].map(declaring) : []),
  ...(process.env.FIXTURE_PINS_FILE ? pinnedTools() : []),
  ...(process.env.FIXTURE_LATE_WRITE
    ? [
        {
          name: 'late_write',
          description: 'Writes `text` to the file `path` after `ms` milliseconds, whatever happens meanwhile (it ignores cancellation but keeps answering pings)',
          inputSchema: object({ path: { type: 'string' }, text: { type: 'string' }, ms: { type: 'number' } }, ['path', 'text', 'ms']),
          annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
          run: async (args: Json) => {
            await new Promise((resolve) => setTimeout(resolve, Number(args.ms)));
            writeFileSync(String(args.path), String(args.text));
            return text('written');
          },
        } satisfies FixtureTool,
      ]
    : []),
  ...(process.env.FIXTURE_HOSTILE ? hostile() : []),
  ...Array.from({ length: Number(process.env.FIXTURE_EXTRA_TOOLS ?? 0) }, (_, index) => ({
    name: `extra-${index + 1}`,
    description: `Extra tool ${index + 1}, for paging`,
    inputSchema: object({}),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: () => text(`extra ${index + 1}`),
  })),
];

/** A tool that declares everything MCP lets a tool declare about itself. */
function declaring(name: string): FixtureTool {
  return {
    name,
    title: `The ${name} tool`,
    description: `Declares a title, icons, an outputSchema and every annotation (${name})`,
    inputSchema: object({ city: { type: 'string' } }, ['city']),
    outputSchema: object({ city: { type: 'string' }, temperature: { type: 'number' }, conditions: { type: 'string', enum: ['sunny', 'rain'] } }, ['city', 'temperature', 'conditions']),
    annotations: { title: `${name} (annotation title)`, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    icons: [
      { src: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=', mimeType: 'image/svg+xml', sizes: ['any'], theme: 'light' },
      { src: 'https://example.invalid/icon-48.png', mimeType: 'image/png', sizes: ['48x48'] },
    ],
    run: (args) => {
      const forecast = { city: String(args.city), temperature: 21.5, conditions: 'sunny' };
      return { ...text(JSON.stringify(forecast)), structuredContent: forecast };
    },
  };
}

const pageSize = Number(process.env.FIXTURE_PAGE_SIZE ?? 5);

function createServer(): Server {
  // FIXTURE_PINS_FILE may give the server's instructions, read when it starts (so a reconnect reads them anew).
  const instructions = pinsState().instructions;
  const server = new Server({ name: 'capstan-fixture', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } }, ...(instructions ? { instructions } : {}) });
  live = server;
  server.setRequestHandler('tools/list', (request) => {
    const all = tools().map(({ run: _run, ...tool }) => tool);
    const start = Number(request.params?.cursor ?? 0);
    const next = start + pageSize;
    return { tools: all.slice(start, next), ...(next < all.length ? { nextCursor: String(next) } : {}) } as never;
  });
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const tool = tools().find((candidate) => candidate.name === request.params.name);
    if (!tool) return { ...text(`no tool ${request.params.name}`), isError: true } as never;
    const meta = ctx.mcpReq._meta as Json | undefined;
    const token = meta?.progressToken as string | number | undefined;
    const progress = async (value: number, total: number) => {
      if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: value, total } });
    };
    return (await tool.run(request.params.arguments ?? {}, { signal: ctx.mcpReq.signal, meta, progress })) as never;
  });
  return server;
}

if (process.env.FIXTURE_EXIT_ON_PROBE) {
  const server = createServer();
  const transport = new StdioServerTransport();
  await server.connect(transport);
  const dispatch = transport.onmessage!;
  let first = true;
  transport.onmessage = (message) => {
    if (first && 'method' in message && message.method !== 'initialize') process.exit(1);
    first = false;
    dispatch(message);
  };
} else {
  serveStdio(createServer);
}
process.stderr.write('capstan fixture server ready\n');
