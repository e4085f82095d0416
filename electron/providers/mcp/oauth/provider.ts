/**
 * Capstan as the OAuth client of one URL MCP server: the SDK's `OAuthClientProvider` over the
 * server's TokenStore record. The SDK (`auth()` of @modelcontextprotocol/client) does the protocol:
 * protected resource metadata (RFC 9728), authorization server metadata (RFC 8414 / OpenID
 * discovery, with its issuer checks), CIMD / dynamic registration (RFC 7591), PKCE S256, the
 * `resource` parameter (RFC 8707), refresh, the token endpoint's authentication method, the
 * `iss` of the authorization response (RFC 9207). This class supplies what is Capstan's: where
 * credentials live, who the client is (or the pre-registered client from config.json), and where
 * the browser goes.
 *
 * An authorization only starts inside a sign-in (signIn.ts), the one place a person is present:
 * there `redirectToAuthorization` hands the URL to the flow. Anywhere else (a connection that
 * finds its tokens gone or refused) it throws SignInRequiredError, and the server waits in the
 * sign-in state instead of retrying.
 */
import { randomBytes } from 'node:crypto';
import {
  InsufficientScopeError,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { CapstanError } from '../../../../shared/errors';
import { isWebAddress } from '../../../../shared/webAddress';
import { StoredTokens, type OAuthRecord, type TokenStore } from './tokenStore';

/** A pre-registered client and sign-in choices, from the server's `oauth` entry in config.json. */
export interface OAuthClientConfig {
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  /** The scope to ask for when the server names none (else its WWW-Authenticate or scopes_supported decide). */
  scope?: string | undefined;
  /** An https URL where Capstan's Client ID Metadata Document is published, for authorization servers that take CIMD. */
  clientMetadataUrl?: string | undefined;
}

/**
 * The server needs a person to sign in (again): no tokens, or the ones it had were refused and
 * could not be refreshed. A CapstanError, so a call that meets it fails with its documented code.
 */
export class SignInRequiredError extends CapstanError {
  constructor(
    readonly server: string,
    readonly reason: string,
  ) {
    super('MCP_SIGN_IN_REQUIRED', `${server} needs sign-in: ${reason}. Sign in from the console or with \`capstan mcp-servers login ${server}\``, { provider: server });
  }
}

/**
 * A call's failure as the sign-in it needs, if that is what it is: a SignInRequiredError however
 * the SDK wrapped it, or the transport's InsufficientScopeError (the server wants more scope
 * than the token carries; the next sign-in asks for it).
 */
export function asSignInRequired(error: unknown, server: string): SignInRequiredError | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth += 1) {
    if (cause instanceof SignInRequiredError) return cause;
    if (cause instanceof InsufficientScopeError) {
      return new SignInRequiredError(server, `the server asks for more scope${cause.requiredScope ? ` ("${cause.requiredScope}")` : ''} than the token carries; a new sign-in asks for it`);
    }
  }
  return undefined;
}

/** The SignInRequiredError behind a failure, however the SDK wrapped it. */
export function signInRequired(error: unknown): SignInRequiredError | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth += 1) {
    if (cause instanceof SignInRequiredError) return cause;
  }
  return undefined;
}

/** One sign-in in progress: where the authorization response comes back, and what opens the browser. */
export interface SignInFlow {
  redirectUrl: string;
  state: string;
  open(authorizationUrl: URL): Promise<void>;
}

export const CLIENT_NAME = 'Capstan';

export class ServerOAuth implements OAuthClientProvider {
  #flow: SignInFlow | undefined;
  #codeVerifier: string | undefined;
  /** What a refresh or sign-in last failed with, for the console (never a token). */
  lastError: { reason: string; at: string } | undefined;
  /** The scope the server's latest challenge named (a 401's or a 403's WWW-Authenticate): the next sign-in asks for it. */
  challengedScope: string | undefined;
  /** The token refresh in flight, shared by every request that needs it (bearer.ts). */
  refreshing: Promise<void> | undefined;
  /** The server has asked for OAuth (a 401 or 403 challenge) since this client was made: until then a URL server is not shown as one that signs in. */
  challenged = false;
  /** Called when tokens in use stopped working for good (a refused refresh): the host reconnects the server, which then waits for a sign-in. */
  onSignInRequired: (() => void) | undefined;
  /** A 403 insufficient_scope is waiting for a sign-in with more scope; `signIns` counts those already made for it. */
  stepUp: { scope: string | undefined; signIns: number } | undefined;

  constructor(
    readonly server: string,
    readonly serverUrl: string,
    private readonly store: TokenStore,
    readonly config: OAuthClientConfig = {},
  ) {}

  get record(): OAuthRecord {
    return this.store.read(this.server);
  }

  update(change: (record: OAuthRecord) => OAuthRecord): void {
    this.store.update(this.server, change);
  }

  /** Starts or ends the interactive part: only inside a flow may an authorization begin. */
  beginFlow(flow: SignInFlow): void {
    this.#flow = flow;
    this.#codeVerifier = undefined;
  }

  endFlow(): void {
    this.#flow = undefined;
    this.#codeVerifier = undefined;
  }

  noteChallenge(scope: string): void {
    this.challengedScope = scope;
  }

  /** The server refused a request for want of scope: the next sign-in steps up (a repeat of the same challenge counts toward the retry limit). */
  noteInsufficientScope(scope: string | undefined): void {
    const same = this.stepUp && this.stepUp.scope === scope;
    this.stepUp = { scope, signIns: same ? this.stepUp!.signIns : 0 };
    this.challenged = true;
    if (scope) this.challengedScope = scope;
    this.lastError = { reason: `the server asks for more scope${scope ? ` ("${scope}")` : ''} than the token carries: sign in again to grant it`, at: new Date().toISOString() };
  }

  get redirectUrl(): string {
    return this.#flow?.redirectUrl ?? `http://127.0.0.1:${this.record.redirectPort ?? 0}/callback`;
  }

  get clientMetadataUrl(): string | undefined {
    return this.config.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: CLIENT_NAME,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A desktop app cannot keep a secret: a public client, unless the operator configured one.
      token_endpoint_auth_method: this.config.clientSecret ? 'client_secret_basic' : 'none',
      application_type: 'native',
    };
  }

  state(): string {
    return this.#flow?.state ?? randomBytes(16).toString('base64url');
  }

  clientInformation(ctx?: OAuthClientInformationContext): StoredOAuthClientInformation | undefined {
    if (this.config.clientId) {
      return { client_id: this.config.clientId, ...(this.config.clientSecret ? { client_secret: this.config.clientSecret } : {}) };
    }
    const { clients, tokens } = this.record;
    const issuer = ctx?.issuer ?? tokens?.issuer;
    const info = issuer ? clients[issuer] : Object.values(clients).at(-1);
    return info as StoredOAuthClientInformation | undefined;
  }

  saveClientInformation(info: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext): void {
    const issuer = ctx?.issuer ?? info.issuer ?? '';
    this.update((record) => ({ ...record, clients: { ...record.clients, [issuer]: { ...info } }, redirectPort: portOf(this.redirectUrl) ?? record.redirectPort }));
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.record.tokens as StoredOAuthTokens | undefined;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.update((record) => ({ ...record, tokens: StoredTokens.parse(tokens), savedAt: Date.now() }));
    this.lastError = undefined;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (!this.#flow) throw new SignInRequiredError(this.server, this.record.tokens ? 'its tokens were refused and could not be refreshed' : 'it asks for OAuth authorization and Capstan holds no tokens for it');
    // The page comes from the authorization server's metadata, and goes to the system's opener
    // (the desktop shell, xdg-open) and to the console as a link: only a web page may, never a
    // file:, smb: or search-ms: address a hostile server could name.
    if (!isWebAddress(authorizationUrl)) throw new Error(`the authorization server's sign-in page is not an https address (${authorizationUrl.protocol}), so it is not opened`);
    await this.#flow.open(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.#codeVerifier) throw new Error('no sign-in is in progress for this server');
    return this.#codeVerifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') {
      this.#codeVerifier = undefined;
      return;
    }
    this.update((record) => ({
      ...record,
      ...(scope === 'all' || scope === 'client' ? { clients: {} } : {}),
      ...(scope === 'all' || scope === 'tokens' ? { tokens: undefined, savedAt: undefined } : {}),
      ...(scope === 'all' || scope === 'discovery' ? { discovery: undefined } : {}),
    }));
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.update((record) => ({ ...record, discovery: JSON.parse(JSON.stringify(state)) as Record<string, unknown> }));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.record.discovery as OAuthDiscoveryState | undefined;
  }

  /** When the access token expires (ms since the epoch), if the authorization server said. */
  expiresAt(record = this.record): number | undefined {
    const { tokens, savedAt } = record;
    return tokens?.expires_in !== undefined && savedAt !== undefined ? savedAt + tokens.expires_in * 1000 : undefined;
  }
}

function portOf(url: string): number | undefined {
  const port = Number(new URL(url).port);
  return port > 0 ? port : undefined;
}

