/**
 * The built CLI (dist/cli.js, `npm run build` first) run as a person or a script would: with
 * a stdin that is not a terminal, or on a pseudo-terminal (`script`) where it may ask and be
 * answered. Its environment is the test's without any CAPSTAN_* variable, plus what a test gives.
 */
import { spawn } from 'node:child_process';
import { CLI } from './serveProcess';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The test's environment without any CAPSTAN_* variable: what every CLI run starts from. */
export const inherited = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CAPSTAN_')));

/** The CLI with a stdin that is not a terminal (a pipe, closed at once), as a script runs it. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...inherited(), ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

export interface TerminalOptions {
  env?: NodeJS.ProcessEnv;
  /** The terminal's width (stty cols); its own default when absent. */
  columns?: number;
  /** Typed, with Enter, once the CLI asks (its `[y/N]` prompt is on the terminal). */
  answer?: string;
}

/** The CLI on a pseudo-terminal; its output as the terminal got it (carriage returns removed). */
export function runCliOnTerminal(args: readonly string[], { env = {}, columns, answer }: TerminalOptions = {}): Promise<{ code: number | null; output: string }> {
  const words = [process.execPath, CLI, ...args].map((word) => `'${word}'`).join(' ');
  const command = columns === undefined ? words : `stty cols ${columns} rows 50; exec ${words}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...inherited(), ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (answer !== undefined && output.includes('[y/N]') && !child.stdin.writableEnded) child.stdin.end(`${answer}\n`);
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output: output.replaceAll('\r', '') })));
}
