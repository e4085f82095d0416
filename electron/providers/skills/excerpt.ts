/**
 * The lines of a skill file around a diagnostic's line, for the operator to see what is wrong
 * without opening the file. Skill files are untrusted: the file is read with the same checks as
 * loading (confinedFile.ts), the excerpt is a few lines each cut to a bounded length, and
 * characters that would act rather than show (control characters, bidirectional overrides) are
 * replaced by visible stand-ins, so a hostile file cannot rearrange or hide what the console or
 * a terminal shows.
 */
import { realpath } from 'node:fs/promises';
import { dirname } from 'node:path';
import { visibleText } from '../../../shared/visibleText';
import { readConfinedFile } from './confinedFile';

/** Lines shown before and after the diagnostic's line. */
export const EXCERPT_CONTEXT_LINES = 3;
/** Characters kept of each line; the rest is cut with `…`. */
export const EXCERPT_LINE_CHARS = 240;
/** The largest skill file any configuration reads (config.ts: skills.maxFileBytes at most 4 MiB). */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

export interface Excerpt {
  /** The 1-based number of the first line in `lines`. */
  firstLine: number;
  lines: string[];
}

/** The lines around `line` (1-based) of a file's bytes, bounded and made visible; invalid UTF-8 shows as U+FFFD. */
export function excerptOf(bytes: Uint8Array, line: number, context = EXCERPT_CONTEXT_LINES): Excerpt {
  const lines = Buffer.from(bytes).toString('utf8').split(/\r?\n/);
  const first = Math.max(1, line - context);
  const last = Math.min(lines.length, line + context);
  return {
    firstLine: first,
    lines: lines.slice(first - 1, last).map((text) => {
      const cut = text.length > EXCERPT_LINE_CHARS ? `${text.slice(0, EXCERPT_LINE_CHARS)}…` : text;
      return visibleText(cut.toWellFormed());
    }),
  };
}

/** Reads a skill file as loading did (confined to its own folder, a regular file, bounded) and excerpts it; null when it is gone. */
export async function readExcerpt(path: string, line: number): Promise<Excerpt | null> {
  const bytes = readConfinedFile(await realpath(dirname(path)), path, MAX_FILE_BYTES);
  return bytes ? excerptOf(bytes, line) : null;
}
