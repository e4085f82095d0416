/**
 * What the CLI prints for a person. Much of it comes from elsewhere: an MCP server's titles,
 * descriptions, results and logs, a skill, a script, an agent's task titles, an error's message.
 * It is shown, never acted on: every control character but newline and tab, and every
 * bidirectional or invisible format character, becomes a visible stand-in (shared/visibleText.ts),
 * so nothing printed can write the clipboard (OSC 52), retitle the window, clear or rewrite the
 * screen, hide the lines after it, or reorder what a line says. One place, so that no command has
 * to remember it. A JSON line keeps those characters as JSON escapes instead: the same values for
 * whatever reads it. `capstan mcp` never prints through here: its stdout is a protocol.
 */
import { visibleText, WITHOUT_NEWLINE } from '../../shared/visibleText';

export const out = (text: string): void => void process.stdout.write(visibleText(text, { keepNewlines: true }));
export const err = (text: string): void => void process.stderr.write(visibleText(text, { keepNewlines: true }));

/** A value as JSON (indented by `indent`), every character a terminal could act on written as a JSON escape. */
export function jsonText(value: unknown, indent?: number): string {
  // What visibleText shows as stand-ins, as JSON escapes instead (C0 controls are escaped already,
  // and an indented line's newline is JSON's own); a tag character is a surrogate pair, each half
  // its own escape, as JSON spells it.
  const escape = (unit: string) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return JSON.stringify(value, null, indent).replace(WITHOUT_NEWLINE, (found) => found.split('').map(escape).join(''));
}

/** `--json`: the value, indented, on stdout. */
export const printJson = (value: unknown): void => void process.stdout.write(`${jsonText(value, 2)}\n`);
/** One value a line (a stream of them: the ledger, a server's log). */
export const printJsonLine = (value: unknown): void => void process.stdout.write(`${jsonText(value)}\n`);
