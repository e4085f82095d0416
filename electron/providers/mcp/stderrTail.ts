/**
 * The last lines a server wrote to stderr, for its status in the console: bounded in lines and
 * in line length, so a chatty or hostile server cannot grow Capstan's memory. Known secret
 * values (its entry's, and the OAuth tokens held for it) are masked before a line is cut or kept,
 * so no cut leaves a piece of one; a line still being written shows masked to its end too.
 */
import { redactClipped } from './secrets';

export const STDERR_LINES = 50;
export const STDERR_LINE_CHARS = 500;

export class StderrTail {
  readonly #lines: string[] = [];
  /** The line being written, as written so far. */
  #open = '';
  /** The line being written went past what a line shows: what it shows, the rest of it dropped until its end. */
  #shown: string | undefined;

  constructor(private readonly secrets: () => readonly string[] = () => []) {}

  write(chunk: Buffer | string): void {
    let text = this.#open + chunk.toString();
    for (let end = text.search(/\r?\n/); end !== -1; end = text.search(/\r?\n/)) {
      this.#keep(this.#shown ?? this.#clipped(text.slice(0, end)));
      this.#shown = undefined;
      text = text.slice(end + (text[end] === '\r' ? 2 : 1));
    }
    // A carriage return alone starts the line over (a progress bar redrawing itself), as a
    // terminal shows it: only what follows shows. (A last `\r` may be half of a line end.)
    const restart = text.lastIndexOf('\r', text.length - 2);
    if (restart !== -1) {
      this.#shown = undefined;
      text = text.slice(restart + 1);
    }
    if (this.#shown !== undefined) {
      // Dropped, but a `\r` may be the first half of the line's end.
      this.#open = text.endsWith('\r') ? '\r' : '';
    } else if (text.length > STDERR_LINE_CHARS + this.#longestSecret()) {
      this.#shown = this.#clipped(text);
      this.#open = text.endsWith('\r') ? '\r' : '';
    } else {
      this.#open = text;
    }
  }

  /** A note of Capstan's own (the process started, exited), kept in order with the server's lines. */
  note(line: string): void {
    this.#keep(this.#clipped(`[capstan] ${line}`));
  }

  lines(): string[] {
    const open = this.#open.replace(/\r$/, '');
    const shown = this.#shown ?? (open ? redactClipped(open, this.secrets(), STDERR_LINE_CHARS, { openEnded: true }) : undefined);
    return shown === undefined ? [...this.#lines] : [...this.#lines, shown];
  }

  #keep(line: string): void {
    this.#lines.push(line);
    if (this.#lines.length > STDERR_LINES) this.#lines.splice(0, this.#lines.length - STDERR_LINES);
  }

  #clipped(line: string): string {
    return redactClipped(line, this.secrets(), STDERR_LINE_CHARS);
  }

  #longestSecret(): number {
    return Math.max(0, ...this.secrets().map((secret) => secret.length));
  }
}
