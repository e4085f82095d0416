/** A plain-text table for a terminal: columns padded to their widest cell, the last one cut to fit. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], width = process.stdout.columns ?? 120): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) => {
    const text = cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ');
    // Only a terminal's width cuts the last column; a pipe gets every character.
    return process.stdout.isTTY && text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text;
  };
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}
