/**
 * `capstan serve` runs with V8's young generation capped at 8 MB a semi-space. Left to itself V8
 * grows it, by the machine's memory, up to 64 MB, and keeps it, garbage and all: with 10,000
 * skills and the console's first search 235 MB against 189 capped; under eight agents calling
 * over /mcp, 330–350 MB against 220–250. The price is more, shorter scavenges (docs/benchmarks.md, ¹³).
 *
 * V8 reads the cap once, as it sets up the heap, so a process started without it re-executes
 * itself with it: the same process id, arguments, environment and standard streams. However it
 * was started (the `capstan` bin, `node dist/cli.js`, the npm scripts, a client starting a
 * gateway for `capstan mcp`), one place decides. It runs before process.stdout or stderr exists:
 * making one sets a pipe non-blocking, a state shared with whoever else writes to that pipe, which
 * Node puts back at exit but an exec would leave behind. Not re-executed: a process given its own
 * size (on the command line or in NODE_OPTIONS), one with an IPC channel (lost across an exec) or
 * an inspector (a debugger would be dropped), and where Node cannot (Windows, Node before 22.15):
 * those run as started.
 */

const YOUNG_GENERATION_CAP = '--max-semi-space-size=8';

/** Returns only if this process may run as it is; otherwise it is replaced by a capped one. */
export function ensureYoungGenerationCap(): void {
  // V8 takes its flags with dashes or underscores, NODE_OPTIONS them quoted too.
  const ownSize = /(^|[\s"'])--max[-_]semi[-_]space[-_]size/;
  if (process.execArgv.some((flag) => ownSize.test(flag)) || ownSize.test(process.env.NODE_OPTIONS ?? '')) return;
  if (process.channel || process.execArgv.some((flag) => /^--inspect/.test(flag))) return;
  if (process.platform === 'win32' || typeof process.execve !== 'function') return;
  try {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, YOUNG_GENERATION_CAP, ...process.argv.slice(1)], process.env);
  } catch {
    // Where Node cannot try (a worker thread, a permission model without child processes): this
    // process serves uncapped. An exec that fails once tried aborts the process instead.
  }
}
