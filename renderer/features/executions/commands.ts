/**
 * A run as text an operator can paste into a terminal: Copy as curl (with the confirmation round
 * trip for a tool that needs one) and Copy as CLI (`capstan call`). The token is never written
 * out: `$CAPSTAN_TOKEN` stands for it, set in the shell first. Pure functions, so a test can run
 * what they produce against a real gateway.
 */

/** What the text stands in for the operator's token. */
export const TOKEN_VARIABLE = 'CAPSTAN_TOKEN';

export interface RunToCopy {
  /** As the call named it: a builtin's name or a capability id. */
  tool: string;
  arguments: Record<string, unknown>;
  sessionId?: string | undefined;
  /** The tool asks for the operator's confirmation on every call. */
  needsConfirmation: boolean;
}

/** A word the shell reads as it is, quoted only when it has to be (single quotes; a `'` inside becomes `'\''`). */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The curl command(s). Without a base URL (the desktop app, where the page does not talk HTTP)
 * `$CAPSTAN_URL` stands for it, defaulting to the usual address. A tool that needs confirmation
 * gets the README's round trip: the first call answers 428 with a challenge, the second carries
 * its id (taken from the answer with sed, so nothing beyond curl and a POSIX shell is needed).
 */
export function curlCommand(run: RunToCopy, baseUrl: string | undefined): string {
  const url = baseUrl === undefined ? '"${CAPSTAN_URL:-http://127.0.0.1:7077}/tools/call"' : shellQuote(`${baseUrl}/tools/call`);
  const curl = `curl -sS -X POST ${url} -H "Authorization: Bearer $${TOKEN_VARIABLE}" -H 'content-type: application/json'`;
  const body = JSON.stringify({ tool: run.tool, arguments: run.arguments, ...(run.sessionId ? { sessionId: run.sessionId } : {}) });
  if (!run.needsConfirmation) return `${curl} --data ${shellQuote(body)}`;
  // The same body with `"confirmation":"<id>"` added before its closing brace; the id comes from the shell variable.
  const confirmed = `${shellQuote(`${body.slice(0, -1)},"confirmation":"`)}"$CHALLENGE"${shellQuote('"}')}`;
  return [
    `# ${run.tool} needs the operator's confirmation: the first call answers 428 with a challenge,`,
    '# the second carries its id. Running both confirms the call, as Confirm does in the console.',
    `CHALLENGE=$(${curl} --data ${shellQuote(body)} | sed -n 's/.*"challenge":{"id":"\\([^"]*\\)".*/\\1/p')`,
    `${curl} --data ${confirmed}`,
  ].join('\n');
}

/** `capstan call TOOL --json '{…}'` (the CLI asks for the confirmation itself, on a terminal; it finds the gateway through the data dir or CAPSTAN_URL). */
export function cliCommand(run: RunToCopy): string {
  const words = ['capstan', 'call', shellQuote(run.tool)];
  if (Object.keys(run.arguments).length > 0) words.push('--json', shellQuote(JSON.stringify(run.arguments)));
  if (run.sessionId) words.push('--session', shellQuote(run.sessionId));
  return words.join(' ');
}
