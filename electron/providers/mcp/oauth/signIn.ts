/**
 * One sign-in to a URL server, the only place an OAuth authorization starts: a person is there to
 * open the authorization URL in their browser (the desktop app opens the system browser,
 * `capstan serve` prints it and the console offers a Sign in button, `capstan mcp-servers login`
 * prints and opens it). The redirect comes back to a loopback listener bound for this flow alone,
 * its `state` checked (loopbackRedirect.ts); the SDK's `auth()` then checks the response's `iss`
 * and trades the code (PKCE) for tokens, which the TokenStore keeps.
 *
 * Scope: what the server's challenge names (an unauthenticated request's WWW-Authenticate), else
 * the config's, else the SDK's choice from the protected resource's `scopes_supported`. A step-up
 * (the server answered 403 insufficient_scope) asks for the union of what was asked before and
 * what is now challenged, and stops after MAX_STEP_UP_SIGN_INS sign-ins that did not satisfy the
 * same challenge: the retry limit, which only the operator can lift (the authorization server
 * does not grant what the server asks).
 */
import { randomBytes } from 'node:crypto';
import { auth, computeScopeUnion, extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import { CapstanError } from '../../../../shared/errors';
import { describeAuthFailure } from './failures';
import { LoopbackRedirect } from './loopbackRedirect';
import type { ServerOAuth } from './provider';

/** Sign-ins for one repeated insufficient_scope challenge before Capstan stops asking (three authorizations in all). */
export const MAX_STEP_UP_SIGN_INS = 2;
/** How long the browser has to come back. */
export const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

/** A sign-in that did not end with tokens; the message names the cause. */
export class SignInFailedError extends CapstanError {
  constructor(
    readonly server: string,
    readonly reason: string,
  ) {
    super('MCP_SIGN_IN_FAILED', `signing in to ${server} failed: ${reason}`, { provider: server });
  }
}

export interface SignInOptions {
  /** Shows the person the authorization URL (a browser, a printed line, a Sign in button). */
  open(authorizationUrl: URL): void | Promise<void>;
  timeoutMs?: number;
}

export async function signIn(oauth: ServerOAuth, { open, timeoutMs = SIGN_IN_TIMEOUT_MS }: SignInOptions): Promise<void> {
  const fail = (reason: string) => {
    oauth.lastError = { reason, at: new Date().toISOString() };
    return new SignInFailedError(oauth.server, reason);
  };
  const stepUp = oauth.stepUp;
  if (stepUp && stepUp.signIns >= MAX_STEP_UP_SIGN_INS) {
    throw fail(
      `retry limit reached: the server still answers insufficient_scope${stepUp.scope ? ` for "${stepUp.scope}"` : ''} after ${stepUp.signIns} sign-ins with that scope; the authorization server does not grant what the server asks (check both configurations), then log out and sign in again`,
    );
  }
  if (stepUp) stepUp.signIns += 1;

  // Discovery afresh: the server may have moved to another authorization server since (its
  // credentials there are the SDK's to tell apart, by their issuer stamp).
  oauth.invalidateCredentials('discovery');
  const challenge = await unauthenticatedChallenge(oauth.serverUrl);
  const record = oauth.record;
  const scope = stepUp
    ? computeScopeUnion(record.requestedScope, record.tokens?.scope, oauth.challengedScope, challenge.scope)
    : (challenge.scope ?? oauth.challengedScope ?? oauth.config.scope);
  const state = randomBytes(24).toString('base64url');
  const redirect = await listen(oauth, state, record.redirectPort);
  oauth.beginFlow({ redirectUrl: redirect.url, state, open: async (url) => void (await open(url)) });
  const options = { serverUrl: oauth.serverUrl, ...(scope ? { scope } : {}), ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}) };
  try {
    // Always a fresh authorization: the person asked to sign in, and a refresh cannot widen scope.
    const first = await auth(oauth, { ...options, forceReauthorization: true });
    if (first === 'REDIRECT') {
      const { code, iss } = await redirect.wait(timeoutMs);
      const done = await auth(oauth, { ...options, authorizationCode: code, ...(iss !== undefined ? { iss } : {}) });
      if (done !== 'AUTHORIZED') throw new Error('the authorization server gave no tokens');
    }
    oauth.update((current) => ({ ...current, redirectPort: redirect.port, ...(scope ? { requestedScope: scope } : {}) }));
    oauth.lastError = undefined;
    oauth.challengedScope = undefined;
  } catch (error) {
    throw fail(describeAuthFailure(error));
  } finally {
    oauth.endFlow();
    await redirect.close();
  }
}

/**
 * The redirect listener, on the port the registered redirect URI names when it is free. When it
 * is not, a new port, and a dynamically registered client registers again with the new URI.
 */
async function listen(oauth: ServerOAuth, state: string, port: number | undefined): Promise<LoopbackRedirect> {
  if (port !== undefined) {
    try {
      return await LoopbackRedirect.listen(state, port);
    } catch {
      if (!oauth.config.clientId) oauth.invalidateCredentials('client');
    }
  }
  return LoopbackRedirect.listen(state);
}

/** What the server says to a request without a token: its WWW-Authenticate (resource metadata URL, scope), if any. */
async function unauthenticatedChallenge(serverUrl: string): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  try {
    const response = await fetch(serverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel().catch(() => {});
    if (response.status !== 401 && response.status !== 403) return {};
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  } catch {
    return {};
  }
}
