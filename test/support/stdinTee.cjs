/**
 * Runs an MCP server on stdio exactly as given, and copies every byte it receives on stdin to a
 * file: `node stdinTee.cjs <file> <command> [args...]`. What a test reads from the file is what
 * the server itself received, not what the client meant to send.
 */
const { spawn } = require('node:child_process');
const { createWriteStream } = require('node:fs');

const [file, command, ...args] = process.argv.slice(2);
const copy = createWriteStream(file, { flags: 'a' });
const child = spawn(command, args, { stdio: ['pipe', 'inherit', 'inherit'] });
process.stdin.on('data', (chunk) => {
  copy.write(chunk);
  child.stdin.write(chunk);
});
process.stdin.on('end', () => child.stdin.end());
child.on('exit', (code, signal) => copy.end(() => process.exit(signal ? 1 : (code ?? 0))));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
