/**
 * `npm start`: the Electron app where its binary can be had, else the same console served to a
 * browser, as `npm run serve` does. Electron's npm package downloads its binary on first use
 * from outside the package registries, which some machines cannot reach.
 */
import { execFile, spawn } from 'node:child_process';
import { accessSync, constants, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const distDir = dirname(fileURLToPath(import.meta.url));
const projectDir = dirname(distDir);
/** Long enough for a first download of the binary (~100 MB), short enough not to hang on a dead network. */
const RESOLVE_TIMEOUT_MS = 120_000;

/**
 * Asks the electron package for its binary in a child process: requiring it may start a
 * download that writes to stdout and throws when it fails, and neither may disturb this process.
 */
function resolveElectronBinary(): Promise<string | undefined> {
  const script = "process.stdout.write('\\n' + require('electron'))";
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', script], { cwd: projectDir, timeout: RESOLVE_TIMEOUT_MS, windowsHide: true }, (error, stdout) => {
      // The download's own messages come first; the path is the last line.
      const candidate = error ? undefined : stdout.split('\n').at(-1)?.trim();
      resolve(candidate && isExecutable(candidate) ? candidate : undefined);
    });
  });
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function runElectron(binary: string, args: string[]): void {
  const env = { ...process.env };
  // Set by some parent tools; it would make the binary behave as plain Node.
  delete env.ELECTRON_RUN_AS_NODE;
  const child = spawn(binary, [join(distDir, 'main.cjs'), ...args], { stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  child.on('error', (error) => {
    process.stderr.write(`Capstan: could not start Electron (${error.message})\n`);
    process.exit(1);
  });
  child.on('exit', (code) => process.exit(code ?? 1));
}

/** The browser fallback runs `capstan serve` in this process, so signals need no forwarding. */
async function serveForBrowser(args: string[]): Promise<void> {
  // Written to the descriptor, not process.stdout: serve may re-execute this process, and must find
  // the standard streams untouched (electron/cli/youngGeneration.ts).
  writeSync(
    1,
    'Capstan: the Electron binary is not available on this machine (it could not be downloaded); serving the console for a browser instead — open the URL below. (npm run serve does the same.)\n',
  );
  const cli = join(distDir, 'cli.js');
  // cli.js reads its command from process.argv when it loads.
  process.argv = [process.argv[0] ?? process.execPath, cli, 'serve', ...args];
  await import(pathToFileURL(cli).href);
}

const args = process.argv.slice(2);
const binary = await resolveElectronBinary();
if (binary) runElectron(binary, args);
else await serveForBrowser(args);
