/**
 * `capstan serve` runs with V8's young generation capped at 8 MB a semi-space. Left to itself V8
 * grows it, by the machine's memory, up to 64 MB, and keeps it, garbage and all: with 10,000
 * skills and the console's first search 235 MB against 189 capped; under eight agents calling
 * over /mcp, 330–350 MB against 220–250. The price is more, shorter scavenges (docs/benchmarks.md, ¹³).
 *
 * V8 reads the cap once, as it sets up the heap, so a process started without it re-executes
 * itself with it: the same process id, arguments, environment and standard streams, nothing yet
 * opened. However it was started (the `capstan` bin, `node dist/cli.js`, the npm scripts, a
 * client starting a gateway for `capstan mcp`), one place decides. Where Node cannot (Windows,
 * Node before 22.15: no `process.execve`), the gateway runs uncapped, as it would have anyway.
 */

const YOUNG_GENERATION_CAP = '--max-semi-space-size=8';

/** Returns only if this process already runs with the cap, or cannot be replaced by one that does. */
export function ensureYoungGenerationCap(): void {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  // V8 takes its flags with dashes or underscores.
  if (given.some((flag) => flag.replaceAll('_', '-').startsWith('--max-semi-space-size'))) return;
  if (typeof process.execve !== 'function') return;
  // Writes still queued (a pipe is written asynchronously on macOS) would be lost with the process.
  if (process.stdout.writableLength > 0 || process.stderr.writableLength > 0) return;
  try {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, YOUNG_GENERATION_CAP, ...process.argv.slice(1)], process.env);
  } catch {
    // Replacing the process failed (it is still this one): serve uncapped rather than not at all.
  }
}
