/**
 * The last lines a server wrote to stderr, for its status in the console: bounded in lines and
 * in line length, so a chatty or hostile server cannot grow Capstan's memory. Known secret
 * values (its env and headers) are masked before a line is kept.
 */
import { SECRET_MASK } from '../../../shared/mcp';

export const STDERR_LINES = 50;
export const STDERR_LINE_CHARS = 500;

export class StderrTail {
  readonly #lines: string[] = [];
  #partial = '';

  constructor(private readonly secrets: () => readonly string[] = () => []) {}

  write(chunk: Buffer | string): void {
    const text = this.#partial + chunk.toString();
    const lines = text.split(/\r?\n/);
    // The last piece has no line end yet; keep at most one line's worth of it.
    this.#partial = lines.pop()!.slice(-STDERR_LINE_CHARS);
    for (const line of lines) this.#keep(line);
  }

  /** A note of Capstan's own (the process started, exited), kept in order with the server's lines. */
  note(line: string): void {
    this.#keep(`[capstan] ${line}`);
  }

  lines(): string[] {
    return this.#partial ? [...this.#lines, this.#masked(this.#partial)] : [...this.#lines];
  }

  #keep(line: string): void {
    this.#lines.push(this.#masked(line.length > STDERR_LINE_CHARS ? `${line.slice(0, STDERR_LINE_CHARS)}…` : line));
    if (this.#lines.length > STDERR_LINES) this.#lines.splice(0, this.#lines.length - STDERR_LINES);
  }

  #masked(line: string): string {
    let masked = line;
    for (const secret of this.secrets()) if (secret.length >= 4) masked = masked.replaceAll(secret, SECRET_MASK);
    return masked;
  }
}
