/**
 * The Harn child process: `<harn.command> <harn.args...> <script>`, JSON-RPC lines on its stdin
 * and stdout, log lines on its stderr. Starting it waits for the operating system's answer, so a
 * missing or unusable binary is an error naming the setting rather than a run that dies later.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { dirname } from 'node:path';
import type { HarnConfig } from '../../shared/harn';
import { CapstanError } from '../../shared/errors';
import { childEnvironment } from '../providers/childEnvironment';
import { lineSplitter } from './rpc';

/** After SIGTERM, how long the child has before SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** A stderr line longer than this is cut into pieces (each is clipped again for display). */
const STDERR_LINE_CHARS = 16 * 1024;
/**
 * How much of what Capstan wrote may sit unread in the child's stdin before the child counts as
 * not reading it. A child that keeps sending requests without reading their answers would
 * otherwise make the gateway hold every answer in memory. Checked before each write, so one
 * large answer (a tool result may be tens of MiB) still goes to a child that reads.
 */
export const MAX_UNREAD_INPUT_BYTES = 16 * 1024 * 1024;

export interface ChildExit {
  code: number | null;
  signal: string | null;
}

export interface ChildHandlers {
  line(line: string): void;
  stderr(line: string): void;
  /** A stdout line over the protocol's limit: nothing more is read from stdout. */
  tooLong(): void;
  /** Over MAX_UNREAD_INPUT_BYTES wait in the child's stdin: nothing more is written to it or read from its stdout. */
  notReading(): void;
}

export interface HarnChild {
  pid: number | undefined;
  write(line: string): void;
  /** Closes the child's stdin: an ACP server reading it ends. */
  endInput(): void;
  /** Resolves once the process has exited. */
  exited: Promise<ChildExit>;
  /** SIGTERM, then SIGKILL after a grace; resolves once it has exited. */
  kill(): Promise<ChildExit>;
}

/** `environment`: variables for this run only (its trace context), besides the allowed ones. */
export async function startChild(config: HarnConfig, script: string, handlers: ChildHandlers, environment: Record<string, string> = {}): Promise<HarnChild> {
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(config.command, [...config.args, script], {
      cwd: dirname(script),
      // An allowed list of the gateway's variables (never CAPSTAN_TOKEN) and config.json's `harn.env`.
      env: { ...childEnvironment(config.env), ...environment },
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
  } catch (error) {
    throw unavailable(config, error);
  }
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) => reject(unavailable(config, error)));
  });

  const exited = new Promise<ChildExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  // A write after the child closed its stdin fails asynchronously; the exit tells the run.
  child.stdin.on('error', () => {});
  let inputStalled = false;
  const readLine = lineSplitter(handlers.line, handlers.tooLong);
  child.stdout.on('data', (chunk: Buffer) => {
    if (!inputStalled) readLine(chunk);
  });
  let pending = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    if (pending.length > STDERR_LINE_CHARS) {
      lines.push(pending);
      pending = '';
    }
    for (const line of lines) if (line.trim() !== '') handlers.stderr(line.replace(/\r$/, ''));
  });
  child.stderr.on('end', () => pending.trim() !== '' && handlers.stderr(pending));

  return {
    pid: child.pid,
    write: (line) => {
      if (inputStalled || !child.stdin.writable) return;
      if (child.stdin.writableLength > MAX_UNREAD_INPUT_BYTES) {
        // Its requests are not read either: each would be answered into the same unread pile.
        inputStalled = true;
        handlers.notReading();
        return;
      }
      child.stdin.write(`${line}\n`);
    },
    endInput: () => child.stdin.end(),
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const force = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
        void exited.then(() => clearTimeout(force));
      }
      return exited;
    },
  };
}

function unavailable(config: HarnConfig, error: unknown): CapstanError {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'there is no such program; install Harn, or set harn.command in config.json to its path'
      : code === 'EACCES'
        ? 'it is not executable'
        : (error as Error).message;
  return new CapstanError('HARN_UNAVAILABLE', `config.json harn.command "${config.command}" could not be started: ${why}`, { setting: 'harn.command', command: config.command });
}
