/**
 * `capstan mcp-servers login NAME` / `logout NAME` / `auth NAME`: a URL server's OAuth sign-in
 * from a terminal, through the running gateway (which holds the tokens and reconnects the server
 * once signed in). `login` prints the authorization URL, opens it in the system browser unless
 * `--no-browser`, and waits until the browser came back (signed in) or the sign-in failed, whose
 * reason it prints. `logout` forgets the tokens (revoked at the authorization server where it
 * offers revocation). `auth` prints the state: signed in as, scopes, expiry, next refresh, the
 * last error. No token is ever printed.
 *
 * The gateway and the operator's token are found as for `capstan tools` (connection.ts).
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import type { McpServerAuth } from '../../shared/mcp';
import { UsageError } from '../server';
import { isWebAddress } from '../../shared/webAddress';
import type { Client } from './client';
import { connect, CONNECTION_OPTIONS } from './connection';
import { err, out, printJsonLine } from './terminal';

/** How often `login` asks the gateway whether the sign-in ended, and for how long in all. */
const POLL_MS = 500;
const LOGIN_WAIT_MS = 5 * 60_000 + 10_000;

export async function mcpServersCommand(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { ...CONNECTION_OPTIONS, 'no-browser': { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (sub !== 'login' && sub !== 'logout' && sub !== 'auth') throw new UsageError(`mcp-servers needs login, logout or auth${sub ? `, not "${sub}"` : ''}`);
  if (positionals.length !== 1) throw new UsageError(`mcp-servers ${sub} takes one MCP server name`);
  const name = positionals[0]!;
  const client = await connect(values, `mcp-servers ${sub}`);
  if (sub === 'auth') {
    const auth = await client.call('getServerAuth', { name });
    return values.json ? printJsonLine(auth) : out(describe(name, auth));
  }
  if (sub === 'logout') {
    const { revokedAtServer } = await client.call('signOutServer', { name });
    return out(`signed out of ${name}: its tokens are forgotten here${revokedAtServer ? ' and revoked at the authorization server' : ' (the authorization server offers no revocation, or refused it)'}\n`);
  }
  const { authorizationUrl } = await client.call('signInServer', { name });
  out(`Sign in to ${name} in your browser:\n  ${authorizationUrl}\n`);
  if (!values['no-browser']) openInBrowser(authorizationUrl);
  const auth = await waitForSignIn(client, name);
  out(describe(name, auth));
  if (auth.state !== 'signed_in') process.exitCode = 1;
}

/** Asks until the sign-in is no longer running: signed in, or failed with a reason. */
async function waitForSignIn(client: Client, name: string): Promise<McpServerAuth> {
  const until = Date.now() + LOGIN_WAIT_MS;
  for (;;) {
    const auth = await client.call('getServerAuth', { name });
    if (auth.state !== 'signing_in' || Date.now() > until) return auth;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The state in a few lines, as `auth` and `login` print it. */
export function describe(name: string, auth: McpServerAuth): string {
  if (!auth.applies) return `${name} does not sign in with OAuth (a stdio server, or its entry sets its own Authorization header)\n`;
  const lines = [`${name}: ${auth.state.replaceAll('_', ' ')}${auth.signedInAs ? ` as ${auth.signedInAs}` : ''}`];
  if (auth.authorizationServer) lines.push(`  authorization server  ${auth.authorizationServer}`);
  if (auth.scopes.length > 0) lines.push(`  scopes                ${auth.scopes.join(' ')}`);
  if (auth.expiresAt) lines.push(`  expires               ${auth.expiresAt}`);
  if (auth.nextRefreshAt) lines.push(`  next refresh          ${auth.nextRefreshAt}`);
  if (auth.lastError) lines.push(`  last error            ${auth.lastError.reason} (${auth.lastError.at})`);
  return `${lines.join('\n')}\n`;
}

/**
 * The system's way to open a URL; a failure only means the person opens the printed URL themselves.
 * Only a web page (the gateway checks it too): the opener would act on any scheme. On Windows not
 * through `cmd /c start`, which reads the URL's `&` as the end of a command.
 */
function openInBrowser(url: string): void {
  if (!URL.canParse(url) || !isWebAddress(new URL(url))) return err(`capstan: not opening ${url}: not an https address\n`);
  const [command, ...args] = process.platform === 'darwin' ? ['open', url] : process.platform === 'win32' ? ['rundll32', 'url.dll,FileProtocolHandler', url] : ['xdg-open', url];
  try {
    const child = spawn(command!, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // Printed above: the person opens it.
  }
}
