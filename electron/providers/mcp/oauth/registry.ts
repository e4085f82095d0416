/**
 * The OAuth side of every URL server the host runs: one ServerOAuth per server (its tokens in the
 * TokenStore under `<data dir>/oauth/`), what each connection carries (bearer.ts), the sign-ins in
 * progress, sign-out, and the state the console and the CLI show. A URL server whose entry sets
 * its own `Authorization` header is left to it; every other one answers a 401 with OAuth.
 *
 * A sign-in runs in the background once started: the caller gets the authorization URL at once
 * (to open, print or show as a button), and the server reconnects when the browser comes back.
 */
import type { OAuthMetadata } from '@modelcontextprotocol/client';
import { CapstanError } from '../../../../shared/errors';
import type { McpServerAuth } from '../../../../shared/mcp';
import type { Logger } from '../../../logger';
import type { McpSettings } from '../settings';
import { connectionAuth, REFRESH_MARGIN_MS, type HttpAuth } from './bearer';
import { describeAuthFailure } from './failures';
import { ServerOAuth } from './provider';
import { isWebAddress } from '../../../../shared/webAddress';
import { signIn, SignInFailedError } from './signIn';
import { PLAIN, TokenStore, type Encrypter } from './tokenStore';

export interface OAuthRegistryParts {
  /** `<data dir>/oauth`. */
  dir: string;
  encrypter?: Encrypter | undefined;
  log: Logger;
  /** A sign-in ended with tokens: the server connects again, now with them. */
  onSignedIn(server: string): void;
  /** A sign-out, or tokens that stopped working for good: the server connects again without them (and so waits for a sign-in). */
  onSignedOut(server: string): void;
  /** A configured server's settings, by name (undefined: no such server). */
  settingsOf(server: string): McpSettings | undefined;
  /** Shows a sign-in's authorization URL to the person (Electron: the system browser opens it; `capstan serve`: printed); it is also logged and shown in the console. */
  presentSignIn?: ((server: string, url: string) => void) | undefined;
}

interface Pending {
  authorizationUrl: Promise<URL>;
  done: Promise<void>;
  url?: string;
}

export class OAuthRegistry {
  readonly #store: TokenStore;
  readonly #servers = new Map<string, ServerOAuth>();
  readonly #pending = new Map<string, Pending>();

  constructor(private readonly parts: OAuthRegistryParts) {
    this.#store = new TokenStore(parts.dir, parts.encrypter ?? PLAIN);
  }

  /** Whether Capstan answers this server's 401 with OAuth: a URL server without its own Authorization header. */
  static applies(settings: McpSettings): boolean {
    return settings.transport === 'http' && !Object.keys(settings.entry.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
  }

  /** The server's OAuth client, made anew when its URL or `oauth` entry changed. */
  server(settings: McpSettings): ServerOAuth | undefined {
    if (!OAuthRegistry.applies(settings)) return undefined;
    const known = this.#servers.get(settings.name);
    const config = settings.entry.oauth ?? {};
    if (known && known.serverUrl === settings.entry.url && JSON.stringify(known.config) === JSON.stringify(config)) return known;
    const made = new ServerOAuth(settings.name, settings.entry.url!, this.#store, config);
    made.onSignInRequired = () => setImmediate(() => this.parts.onSignedOut(settings.name));
    if (known && known.serverUrl !== settings.entry.url) this.#store.remove(settings.name); // tokens are for the resource they were issued for
    this.#servers.set(settings.name, made);
    return made;
  }

  /**
   * What Capstan holds for a server that must never be shown (its tokens, the client secret its
   * authorization server issued), to be masked wherever the server's words are: a server may echo
   * the Authorization header it was sent in an error.
   */
  heldSecrets(server: string): string[] {
    const oauth = this.#servers.get(server);
    if (!oauth) return [];
    const tokens = oauth.tokens();
    return [tokens?.access_token, tokens?.refresh_token, oauth.clientInformation()?.client_secret].filter((value): value is string => typeof value === 'string' && value !== '');
  }

  /** What the server's connection carries (McpConnection.open's `auth`). */
  authFor(settings: McpSettings): HttpAuth | undefined {
    const oauth = this.server(settings);
    return oauth && connectionAuth(oauth);
  }

  /**
   * Starts a sign-in (or joins the one running) and answers with the authorization URL to open.
   * The flow goes on in the background; `done` settles when it ends.
   */
  async startSignIn(settings: McpSettings, { open }: { open?: (url: URL) => void } = {}): Promise<{ authorizationUrl: string; done: Promise<void> }> {
    const oauth = this.server(settings);
    if (!oauth) throw new SignInFailedError(settings.name, settings.transport === 'http' ? 'its entry sets its own Authorization header' : 'only a URL server signs in with OAuth');
    let pending = this.#pending.get(settings.name);
    if (!pending) {
      let shown!: (url: URL) => void;
      const authorizationUrl = new Promise<URL>((resolve) => (shown = resolve));
      const done = signIn(oauth, {
        open: (url) => {
          shown(url);
          open?.(url);
        },
      }).then(
        () => {
          this.parts.log.info({ provider: settings.name }, 'signed in to the MCP server');
          this.parts.onSignedIn(settings.name);
        },
        (error: unknown) => {
          this.parts.log.warn({ provider: settings.name, reason: describeAuthFailure(error) }, 'MCP server sign-in failed');
          throw error;
        },
      );
      const entry: Pending = { authorizationUrl, done };
      pending = entry;
      this.#pending.set(settings.name, entry);
      void done.then(
        () => this.#pending.delete(settings.name),
        () => this.#pending.delete(settings.name),
      );
      void authorizationUrl.then((url) => (entry.url = url.href));
    }
    // A sign-in that fails before it has a URL (discovery, registration) answers with its reason.
    const url = await Promise.race([pending.authorizationUrl, pending.done.then(() => undefined)]);
    if (!url) throw new SignInFailedError(settings.name, 'the server gave tokens without a browser (a refresh) and is signed in');
    return { authorizationUrl: url.href, done: pending.done };
  }

  /**
   * Forgets the server's tokens and registration here, after asking the authorization server to
   * revoke the refresh token (RFC 7009) where it offers revocation. Answers whether it did.
   */
  async signOut(settings: McpSettings): Promise<{ revokedAtServer: boolean }> {
    const oauth = this.server(settings);
    if (!oauth) return { revokedAtServer: false };
    const revokedAtServer = await revoke(oauth).catch(() => false);
    oauth.invalidateCredentials('all');
    this.#store.remove(settings.name);
    oauth.stepUp = undefined;
    oauth.challengedScope = undefined;
    oauth.lastError = undefined;
    this.parts.onSignedOut(settings.name);
    return { revokedAtServer };
  }

  /** The API's entry points, by server name (NOT_FOUND for a name no server has). */
  statusOf(server: string): McpServerAuth {
    return this.status(this.#settings(server));
  }

  async signInTo(server: string): Promise<{ authorizationUrl: string; auth: McpServerAuth }> {
    const settings = this.#settings(server);
    const { authorizationUrl, done } = await this.startSignIn(settings, {
      open: (url) => {
        // Logged, and shown where the host can (a browser, a printed line).
        this.parts.log.info({ provider: server, authorizationUrl: url.href }, 'sign in to the MCP server: open the authorization URL');
        this.parts.presentSignIn?.(server, url.href);
      },
    });
    done.catch(() => {}); // its failure is the server's lastError, shown with its status
    return { authorizationUrl, auth: this.status(settings) };
  }

  async signOutOf(server: string): Promise<{ revokedAtServer: boolean; auth: McpServerAuth }> {
    const settings = this.#settings(server);
    const { revokedAtServer } = await this.signOut(settings);
    return { revokedAtServer, auth: this.status(settings) };
  }

  #settings(server: string): McpSettings {
    const settings = this.parts.settingsOf(server);
    if (!settings) throw new CapstanError('NOT_FOUND', `no MCP server is named "${server}"`, { provider: server });
    return settings;
  }

  /** The console's and CLI's view: never a token. */
  status(settings: McpSettings): McpServerAuth {
    const oauth = this.server(settings);
    if (!oauth) return { applies: false, state: 'not_used', signedInAs: null, scopes: [], expiresAt: null, nextRefreshAt: null, authorizationServer: null, authorizationUrl: null, lastError: null };
    const record = oauth.record;
    const tokens = record.tokens;
    const expiresAt = oauth.expiresAt(record);
    const pending = this.#pending.get(settings.name);
    // A URL server that never asked for OAuth, and holds nothing from it, is not one that signs in (yet).
    const used = oauth.challenged || tokens !== undefined || Object.keys(record.clients).length > 0 || settings.entry.oauth !== undefined;
    return {
      applies: true,
      state: pending ? 'signing_in' : tokens ? 'signed_in' : used ? 'signed_out' : 'not_used',
      signedInAs: tokens?.id_token ? subjectOf(tokens.id_token) : null,
      scopes: tokens?.scope?.split(' ').filter(Boolean) ?? [],
      expiresAt: expiresAt === undefined ? null : new Date(expiresAt).toISOString(),
      nextRefreshAt: expiresAt !== undefined && tokens?.refresh_token ? new Date(expiresAt - REFRESH_MARGIN_MS).toISOString() : null,
      authorizationServer: tokens?.issuer ?? (record.discovery?.authorizationServerUrl as string | undefined) ?? null,
      authorizationUrl: pending?.url ?? null,
      lastError: oauth.lastError ?? null,
    };
  }
}

/**
 * Revokes the refresh token (else the access token) at the authorization server's revocation
 * endpoint, if it names one. Only at the server that issued the tokens: the discovery saved last
 * may be another's (a server's metadata can name a new authorization server at any 401), and the
 * request carries the token and the client's secret. So the metadata's issuer must be the
 * tokens', the endpoint an https address (or on this machine), and no redirect is followed.
 */
async function revoke(oauth: ServerOAuth): Promise<boolean> {
  const tokens = oauth.tokens();
  const metadata = oauth.discoveryState()?.authorizationServerMetadata as OAuthMetadata | undefined;
  const endpoint = metadata?.revocation_endpoint;
  if (!tokens || !endpoint || !tokens.issuer || metadata.issuer !== tokens.issuer) return false;
  if (!URL.canParse(endpoint) || !isWebAddress(new URL(endpoint))) return false;
  const client = oauth.clientInformation(tokens.issuer ? { issuer: tokens.issuer } : undefined);
  const body = new URLSearchParams({ token: tokens.refresh_token ?? tokens.access_token, token_type_hint: tokens.refresh_token ? 'refresh_token' : 'access_token' });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (client?.client_secret) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`;
  else if (client) body.set('client_id', client.client_id);
  const response = await fetch(endpoint, { method: 'POST', headers, body, redirect: 'error', signal: AbortSignal.timeout(10_000) });
  return response.ok;
}

/** Who the ID token says signed in (email, name or subject), read for display only: the token itself is not kept in any view. */
function subjectOf(idToken: string): string | null {
  try {
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    const who = claims.email ?? claims.preferred_username ?? claims.name ?? claims.sub;
    return typeof who === 'string' ? who : null;
  } catch {
    return null;
  }
}
