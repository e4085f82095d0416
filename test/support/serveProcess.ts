/** Runs the built `capstan serve` as an operator would and waits for its console line. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
export const ELECTRON_MAIN = fileURLToPath(new URL('../../dist/main.cjs', import.meta.url));
const ELECTRON_STAND_IN = fileURLToPath(new URL('./electronStandIn.cjs', import.meta.url));

export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  consoleUrl: string;
  url: string;
  token: string;
  stderr: () => string;
  /** Resolves with the exit code (or signal) when the process ends. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `env` adds to this process's environment minus its CAPSTAN_* variables, which would change the
 * options under test; `nodeArgs` are Node's flags, before the CLI.
 */
export function startServe(args: string[], env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []): Promise<ServeProcess> {
  return launch(CLI, ['serve', ...args], env, nodeArgs);
}

/**
 * The built Electron entry (dist/main.cjs) under plain Node, with electronStandIn.cjs answering
 * for the `electron` module: Electron's binary cannot be had on these machines.
 */
export function startElectronMainWithStandIn(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  return launch(ELECTRON_MAIN, args, env, ['--require', ELECTRON_STAND_IN]);
}

/** Kills what a test started and left running (a test that fails midway leaves its processes), and waits for each to exit. */
export async function killAll(processes: readonly ServeProcess[]): Promise<void> {
  for (const serve of processes) {
    serve.child.kill('SIGKILL');
    await serve.exited;
  }
}

const HOST_WITH_TEST_TOOLS = fileURLToPath(new URL('../../dist/host-with-test-tools.mjs', import.meta.url));

/**
 * A real host with the test provider (test:stubborn_write...) as a process of its own: see
 * hostWithTestTools.ts. `fileSizeLimit` (bytes, a multiple of 512) caps each file it writes, as a
 * full disk would (`ulimit -f`, with SIGXFSZ ignored so a write past it fails instead of killing it).
 */
export async function startHostWithTestTools(dataDir: string, token: string, { fileSizeLimit }: { fileSizeLimit?: number } = {}): Promise<ServeProcess> {
  // Bundled into dist/ so the bundle finds node_modules as dist/cli.js does.
  await build({
    entryPoints: [fileURLToPath(new URL('./hostWithTestTools.ts', import.meta.url))],
    outfile: HOST_WITH_TEST_TOOLS,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
  return launch(HOST_WITH_TEST_TOOLS, [dataDir, token], {}, [], fileSizeLimit === undefined ? undefined : `trap '' XFSZ; ulimit -f ${fileSizeLimit / 512}`);
}

/** `shellSetUp`, when given, runs in `sh` before it execs Node in its place (the same process). */
function launch(entry: string, args: string[], env: NodeJS.ProcessEnv, nodeArgs: string[] = [], shellSetUp?: string): Promise<ServeProcess> {
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CAPSTAN_')));
  const command = [process.execPath, ...nodeArgs, entry, ...args];
  const child = shellSetUp
    ? spawn('sh', ['-c', `${shellSetUp}; exec "$0" "$@"`, ...command], { env: { ...inherited, ...env } })
    : spawn(command[0]!, command.slice(1), { env: { ...inherited, ...env } });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /Capstan console: (http:\/\/\S+)\n/.exec(stdout);
      if (!match?.[1]) return;
      const consoleUrl = match[1];
      const url = new URL(consoleUrl);
      const token = decodeURIComponent(url.hash.replace('#token=', ''));
      resolve({ child, consoleUrl, url: url.origin, token, stderr: () => stderr, exited });
    });
    void exited.then(({ code }) => reject(new Error(`${entry} exited with ${code} before listening:\n${stderr}`)));
  });
}
