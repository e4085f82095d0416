// `npm run conformance:client -- --scenario NAME` (or `--suite auth`, or any other option of the
// suite's `conformance client`): runs the official MCP conformance suite's client scenarios against
// Capstan's own MCP client code, through clientDriver.ts. The driver is bundled first (esbuild: the
// project's imports carry no extensions, so node's type stripping cannot load it). The exit status
// is the suite's: non-zero when a scenario fails. A suite run (`--suite`) is held to
// expected-failures.json, each scenario there left out with its reason; a scenario named with
// `--scenario` is held to pass, whatever that file says.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const out = join(root, 'dist/conformance');
const driver = join(out, 'clientDriver.js');
const runner = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');

await build({
  entryPoints: [join(root, 'test/conformance/clientDriver.ts')],
  outfile: driver,
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  packages: 'external',
  logLevel: 'warning',
});

const args = process.argv.slice(2);
if (args.includes('--suite') && !args.includes('--expected-failures')) {
  // The suite's baseline format (a YAML list under `client:`); the reasons live in the JSON file.
  const expected = Object.keys(JSON.parse(readFileSync(join(root, 'test/conformance/expected-failures.json'), 'utf8')));
  mkdirSync(out, { recursive: true });
  const baseline = join(out, 'expected-failures.yaml');
  writeFileSync(baseline, `client:\n${expected.map((scenario) => `  - ${scenario}\n`).join('')}`);
  args.push('--expected-failures', baseline);
}

// The suite runs the command through a shell and appends the server URL to it.
const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(driver)}`;
const child = spawn(process.execPath, [runner, 'client', '--command', command, ...args], { stdio: 'inherit', cwd: root });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
