/**
 * A plain-text table: columns padded to their widest cell. On a terminal it fits the terminal's
 * width: the widest columns give up characters first, each cut cell ending in "…", and no column
 * is cut below its title or MIN_COLUMN characters (whichever is more), so a column never shrinks
 * to "M…"; a table that cannot fit even so wraps rather than losing its last columns. Without a
 * terminal (a pipe, a file) every value is printed whole.
 */
import { visibleText } from '../../shared/visibleText';

const MIN_COLUMN = 12;
const GAP = '  ';

/** `width`: the terminal's columns, or undefined for full values (stdout is not a terminal). */
export function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  width: number | undefined = process.stdout.isTTY ? process.stdout.columns : undefined,
): string {
  // Cells as they will show (terminal.ts): measured and cut as stand-ins, never mid-sequence.
  rows = rows.map((row) => row.map((text) => visibleText(text)));
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  if (width !== undefined && width > 0) fit(widths, header, width);
  const cell = (text: string, column: number) => (text.length > widths[column]! ? `${text.slice(0, widths[column]! - 1)}…` : text);
  const line = (cells: readonly string[]) =>
    cells
      .map((text, column) => (column === cells.length - 1 ? cell(text, column) : cell(text, column).padEnd(widths[column]!)))
      .join(GAP)
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/** Shrinks the widest columns, one character at a time, until the line fits `width` or none can give more. */
function fit(widths: number[], header: readonly string[], width: number): void {
  const floor = header.map((title, column) => Math.min(widths[column]!, Math.max(title.length, MIN_COLUMN)));
  let excess = widths.reduce((sum, each) => sum + each, 0) + GAP.length * (widths.length - 1) - width;
  while (excess > 0) {
    let widest = -1;
    for (let column = 0; column < widths.length; column++) {
      if (widths[column]! > floor[column]! && (widest === -1 || widths[column]! > widths[widest]!)) widest = column;
    }
    if (widest === -1) return;
    widths[widest] = widths[widest]! - 1;
    excess--;
  }
}
