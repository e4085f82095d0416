// Builds everything `npm start`, `npm run serve` and electron-builder need into dist/:
// the Node side with esbuild (main and preload as CommonJS, as a sandboxed preload must be),
// then the renderer with Vite.
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { build } from 'esbuild';
import { build as viteBuild } from 'vite';

const { dependencies } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// canonicalize ships only ESM with a default export. Required from CommonJS, Node hands back its
// namespace and esbuild's interop takes that namespace for the default, so main.cjs calls an
// object. main.cjs therefore carries it inside; every other package stays in node_modules.
// @modelcontextprotocol/ext-tasks (the MCP tasks receiver) exports ESM only, with no `require`
// condition at all, so it is carried inside too.
const bundledIntoCjs = new Set(['canonicalize', '@modelcontextprotocol/ext-tasks']);
const externalForCjs = ['electron', ...Object.keys(dependencies).filter((name) => !bundledIntoCjs.has(name))];

const common = { bundle: true, platform: 'node', target: 'node22', sourcemap: true, logLevel: 'warning' };
// The CLI's commands import their modules when they run (electron/cli/main.ts): with splitting, each
// dynamic import is a chunk beside cli.js, so `capstan --help` or `capstan tools` load no server
// code. Chunk names carry a hash, so a rebuild never changes a chunk a running `capstan` may still
// import; chunks the new build does not use are removed once they are an hour old.
const CLI_CHUNKS = 'cli-chunks';
const STALE_CHUNK_MS = 60 * 60_000;

/**
 * shared/ipc.ts reads the operation names off the contract (`operations`), which would bundle
 * zod and every schema into the preload (0.8 MB against 2 KB). The preload needs the names alone:
 * they are read from the contract here, at build time, and stand in for shared/api.ts there.
 */
async function operationNamesOnly() {
  const contract = await build({ ...common, entryPoints: ['shared/api.ts'], format: 'esm', write: false, sourcemap: false });
  const { operations } = await import(`data:text/javascript;base64,${Buffer.from(contract.outputFiles[0].text).toString('base64')}`);
  const names = Object.fromEntries(Object.keys(operations).map((name) => [name, {}]));
  return {
    name: 'operation-names-only',
    setup(preload) {
      preload.onLoad({ filter: /[\\/]shared[\\/]api\.ts$/ }, () => ({ contents: `export const operations = ${JSON.stringify(names)};`, loader: 'js' }));
    },
  };
}

const [cliBuild] = await Promise.all([
  build({
    ...common,
    metafile: true,
    entryPoints: { cli: 'electron/cli/main.ts' },
    outdir: 'dist',
    splitting: true,
    chunkNames: `${CLI_CHUNKS}/[name]-[hash]`,
    format: 'esm',
    packages: 'external',
  }),
  build({ ...common, entryPoints: ['electron/start.ts'], outfile: 'dist/start.js', format: 'esm', packages: 'external' }),
  // import.meta.url, which CommonJS lacks, as the bundle's own file URL: runtime/admission.ts
  // resolves its lazily loaded tokenizer from it.
  build({
    ...common,
    entryPoints: ['electron/main.ts'],
    outfile: 'dist/main.cjs',
    format: 'cjs',
    external: externalForCjs,
    define: { 'import.meta.url': 'importMetaUrl' },
    banner: { js: "const importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  }),
  // The preload runs sandboxed: one self-contained CommonJS file, only `electron` left outside,
  // and the contract's operation names without its schemas (operationNamesOnly).
  build({ ...common, entryPoints: ['electron/preload.ts'], outfile: 'dist/preload.cjs', format: 'cjs', external: ['electron'], plugins: [await operationNamesOnly()] }),
]);
const chunksDir = new URL(`../dist/${CLI_CHUNKS}/`, import.meta.url);
const current = new Set(Object.keys(cliBuild.metafile.outputs).map((path) => path.split('/').at(-1)));
for (const name of readdirSync(chunksDir)) {
  const file = new URL(name, chunksDir);
  if (!current.has(name) && Date.now() - statSync(file).mtimeMs > STALE_CHUNK_MS) rmSync(file, { force: true });
}
await viteBuild({ configFile: 'vite.config.ts', logLevel: 'warn' });
