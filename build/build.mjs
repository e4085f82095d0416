// Builds everything `npm start`, `npm run serve` and electron-builder need into dist/:
// the Node side with esbuild (main and preload as CommonJS, as a sandboxed preload must be),
// then the renderer with Vite.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { build as viteBuild } from 'vite';

const { dependencies } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// canonicalize ships only ESM with a default export. Required from CommonJS, Node hands back its
// namespace and esbuild's interop takes that namespace for the default, so main.cjs calls an
// object. main.cjs therefore carries it inside; every other package stays in node_modules.
const bundledIntoCjs = new Set(['canonicalize']);
const externalForCjs = ['electron', ...Object.keys(dependencies).filter((name) => !bundledIntoCjs.has(name))];

const common = { bundle: true, platform: 'node', target: 'node22', sourcemap: true, logLevel: 'warning' };

await Promise.all([
  build({ ...common, entryPoints: ['electron/cli.ts'], outfile: 'dist/cli.js', format: 'esm', packages: 'external' }),
  build({ ...common, entryPoints: ['electron/start.ts'], outfile: 'dist/start.js', format: 'esm', packages: 'external' }),
  build({ ...common, entryPoints: ['electron/main.ts'], outfile: 'dist/main.cjs', format: 'cjs', external: externalForCjs }),
  // The preload runs sandboxed: one self-contained CommonJS file, only `electron` left outside.
  build({ ...common, entryPoints: ['electron/preload.ts'], outfile: 'dist/preload.cjs', format: 'cjs', external: ['electron'] }),
]);
await viteBuild({ configFile: 'vite.config.ts', logLevel: 'warn' });
