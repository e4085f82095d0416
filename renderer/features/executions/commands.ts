/**
 * A run as text an operator can paste into a terminal: Copy as curl (for a tool that needs
 * confirmation, the first call and how to confirm it) and Copy as CLI (`capstan call`). The token is never written
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

/** Stands for the challenge's id in the follow-up command until the script prints it with the real one. */
const ID_SLOT = 'CAPSTAN_CHALLENGE_ID_SLOT';

/**
 * The curl command(s). Without a base URL (the desktop app, where the page does not talk HTTP)
 * `$CAPSTAN_URL` stands for it, defaulting to the usual address. A tool that needs confirmation
 * is not confirmed by the text itself, as `capstan call` does not confirm without a terminal: it
 * makes the first call (answered 428 with a challenge; nothing runs), then prints the challenge's
 * id and the exact follow-up command that confirms it, for the operator to read and run, and
 * exits 4 (the CLI's "not confirmed"). Any other answer is printed as it came. The id is taken
 * from the answer with sed, so nothing beyond curl and a POSIX shell is needed.
 */
export function curlCommand(run: RunToCopy, baseUrl: string | undefined): string {
  const url = baseUrl === undefined ? '"${CAPSTAN_URL:-http://127.0.0.1:7077}/tools/call"' : shellQuote(`${baseUrl}/tools/call`);
  const curl = `curl -sS -X POST ${url} -H "Authorization: Bearer $${TOKEN_VARIABLE}" -H 'content-type: application/json'`;
  const body = JSON.stringify({ tool: run.tool, arguments: run.arguments, ...(run.sessionId ? { sessionId: run.sessionId } : {}) });
  if (!run.needsConfirmation) return `${curl} --data ${shellQuote(body)}`;
  // The follow-up: the same body with `"confirmation":"<id>"` added before its closing brace,
  // split around the id so the script prints it whole with the id it got.
  const [before, after] = `${curl} --data ${shellQuote(`${body.slice(0, -1)},"confirmation":"${ID_SLOT}"}`)}`.split(ID_SLOT) as [string, string];
  const tool = shellQuote(run.tool);
  // In a subshell, so its exit ends only the script, not a terminal it is pasted into.
  return [
    `# ${run.tool} needs the operator's confirmation. This asks for it and runs nothing: the gateway`,
    '# answers 428 with a challenge, and the script prints its id and the command that confirms it.',
    '(',
    `  ANSWER=$(${curl} --data ${shellQuote(body)})`,
    `  CHALLENGE=$(printf '%s' "$ANSWER" | sed -n 's/.*"challenge":{"id":"\\([^"]*\\)".*/\\1/p')`,
    '  if [ -z "$CHALLENGE" ]; then printf \'%s\\n\' "$ANSWER"; exit 1; fi',
    `  printf '%s needs your confirmation; nothing ran. Challenge: %s (single use, for these exact arguments, short-lived).\\nTo confirm and run it, run:\\n' ${tool} "$CHALLENGE"`,
    `  printf '%s%s%s\\n' ${shellQuote(before)} "$CHALLENGE" ${shellQuote(after)}`,
    '  exit 4',
    ')',
  ].join('\n');
}

/** `capstan call TOOL --json '{…}'` (the CLI asks for the confirmation itself, on a terminal; it finds the gateway through the data dir or CAPSTAN_URL). */
export function cliCommand(run: RunToCopy): string {
  const words = ['capstan', 'call', shellQuote(run.tool)];
  if (Object.keys(run.arguments).length > 0) words.push('--json', shellQuote(JSON.stringify(run.arguments)));
  if (run.sessionId) words.push('--session', shellQuote(run.sessionId));
  return words.join(' ');
}
