/**
 * What a connection to an OAuth-protected server carries: the access token on every request,
 * refreshed shortly before it expires and again when the server refuses it (401), through the
 * SDK's `auth()` on the stored refresh token. A connection never starts an authorization: with no
 * token, or a refresh the authorization server refuses, it fails with SignInRequiredError and the
 * server waits for a sign-in. A 403 `insufficient_scope` is noted (the next sign-in asks for that
 * scope beside the old one) and the request fails; the transport's own step-up would need a
 * person in the middle of a call.
 */
import { auth, extractWWWAuthenticateParams, OAuthError, type AuthProvider, type FetchLike } from '@modelcontextprotocol/client';
import { describeAuthFailure } from './failures';
import { SignInRequiredError, signInRequired, type ServerOAuth } from './provider';

/** Refresh this long before the access token expires, so no request goes out with a dying token. */
export const REFRESH_MARGIN_MS = 60_000;

export interface HttpAuth {
  authProvider: AuthProvider;
  fetch: FetchLike;
}

export function connectionAuth(oauth: ServerOAuth): HttpAuth {
  // One refresh at a time per server: requests that find the token due together share it (a
  // rotated refresh token used twice would be refused, and the grant with it).
  const refresh = (fetchFn: FetchLike, resourceMetadataUrl?: URL): Promise<void> =>
    (oauth.refreshing ??= refreshOnce(fetchFn, resourceMetadataUrl).finally(() => (oauth.refreshing = undefined)));
  const refreshOnce = async (fetchFn: FetchLike, resourceMetadataUrl?: URL) => {
    if (!oauth.tokens()?.refresh_token) throw new SignInRequiredError(oauth.server, oauth.tokens() ? 'its access token was refused and there is no refresh token' : 'Capstan holds no tokens for it');
    try {
      const result = await auth(oauth, { serverUrl: oauth.serverUrl, fetchFn, ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}) });
      if (result !== 'AUTHORIZED') throw new SignInRequiredError(oauth.server, 'the refresh did not give a token');
    } catch (error) {
      // The SDK meets a refused refresh (invalid_grant) by starting an authorization, which only a
      // sign-in may do (provider.ts): that is how a revoked or expired grant shows here.
      const reason = signInRequired(error) ? 'the authorization server refused the refresh token (the grant was revoked or has expired)' : describeAuthFailure(error);
      oauth.lastError = { reason, at: new Date().toISOString() };
      // Not refused, only not done (the authorization server unreachable, say): the tokens stay for the next try.
      if (!signInRequired(error) && !(error instanceof OAuthError)) throw new Error(`the token refresh failed: ${reason}`, { cause: error });
      // Tokens that cannot come back are dropped, and the server goes to the sign-in state at once
      // rather than at its next heartbeat.
      oauth.invalidateCredentials('tokens');
      oauth.onSignInRequired?.();
      throw new SignInRequiredError(oauth.server, reason);
    }
  };
  return {
    authProvider: {
      async token() {
        const expiresAt = oauth.expiresAt();
        if (expiresAt !== undefined && expiresAt - Date.now() < REFRESH_MARGIN_MS && oauth.tokens()?.refresh_token) await refresh(fetch);
        return oauth.tokens()?.access_token;
      },
      async onUnauthorized({ response, fetchFn }) {
        const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
        oauth.challenged = true;
        if (scope) oauth.noteChallenge(scope);
        // A refused token may mean the server moved to another authorization server: discover again.
        oauth.invalidateCredentials('discovery');
        await refresh(fetchFn, resourceMetadataUrl);
      },
    },
    async fetch(url, init) {
      const response = await fetch(url, init);
      if (response.status === 403) {
        const { error, scope } = extractWWWAuthenticateParams(response);
        if (error === 'insufficient_scope') oauth.noteInsufficientScope(scope);
      }
      return response;
    },
  };
}
