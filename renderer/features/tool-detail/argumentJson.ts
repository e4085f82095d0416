/**
 * The JSON editor's text as a tool's arguments: what the gateway would take before it looks at
 * any schema (a JSON object it can hash and store), or why not, said on the editor.
 */

/** The text as arguments, or why it cannot be: a JSON object the gateway can hash and store. */
export function parseArgumentsJson(text: string): { args: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `Not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'The arguments must be a JSON object, { … }.' };
  const flaw = notWellFormed(value);
  return flaw ? { error: flaw } : { args: value as Record<string, unknown> };
}

/** What the gateway refuses before any schema (electron/gateway/wellFormed.ts): lone surrogates, numbers past float range. */
function notWellFormed(root: unknown): string | null {
  const pending = [root];
  while (pending.length) {
    const value = pending.pop();
    if (typeof value === 'string' && !value.isWellFormed()) return 'A string holds a lone surrogate (\\ud800-\\udfff), which is not valid Unicode.';
    if (typeof value === 'number' && !Number.isFinite(value)) return 'A number is too large to be sent: JSON numbers here must fit a double.';
    if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (!key.isWellFormed()) return 'A property name holds a lone surrogate, which is not valid Unicode.';
        pending.push(item);
      }
    }
  }
  return null;
}
