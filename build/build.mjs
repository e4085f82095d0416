// Builds everything `npm start`, `npm run serve` and electron-builder need into dist/:
// the Node side with esbuild (main and preload as CommonJS, as a sandboxed preload must be),
// then the renderer with Vite.
import { build } from 'esbuild';
import { build as viteBuild } from 'vite';

const common = { bundle: true, platform: 'node', target: 'node22', sourcemap: true, logLevel: 'warning' };

await Promise.all([
  build({ ...common, entryPoints: ['electron/cli.ts'], outfile: 'dist/cli.js', format: 'esm', packages: 'external' }),
  build({ ...common, entryPoints: ['electron/start.ts'], outfile: 'dist/start.js', format: 'esm', packages: 'external' }),
  build({ ...common, entryPoints: ['electron/main.ts'], outfile: 'dist/main.cjs', format: 'cjs', packages: 'external' }),
  // The preload runs sandboxed: one self-contained CommonJS file, only `electron` left outside.
  build({ ...common, entryPoints: ['electron/preload.ts'], outfile: 'dist/preload.cjs', format: 'cjs', external: ['electron'] }),
]);
await viteBuild({ configFile: 'vite.config.ts', logLevel: 'warn' });
