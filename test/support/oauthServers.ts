/**
 * A real OAuth setup on loopback for the sign-in tests: `oidc-provider` (the certified
 * OpenID/OAuth server library) as the authorization server, configured for dynamic client
 * registration, PKCE, resource indicators (RFC 8707), refresh tokens and revocation; in front of a
 * small Streamable HTTP MCP server built with @modelcontextprotocol/server whose every request
 * needs an access token the authorization server issued for it (RFC 9728 metadata, 401 with
 * WWW-Authenticate otherwise). The person who signs in is played by `browser` (a cookie jar
 * following redirects): the authorization server's interaction page logs in and consents at once.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, OAuthError, OAuthErrorCode, bearerAuthChallengeResponse, createMcpHandler, verifyBearerToken, type AuthInfo } from '@modelcontextprotocol/server';
import Provider, { errors, type Configuration } from 'oidc-provider';

export const ACCOUNT = 'operator@capstan.test';
export const MCP_SCOPE = 'mcp';
/** What the tool `add_note` needs beyond MCP_SCOPE: a call to it without this scope is refused 403 insufficient_scope (a step-up). */
export const WRITE_SCOPE = 'mcp:write';
/** Short enough that a test sees a refresh without waiting long (Capstan refreshes a minute before expiry). */
export const ACCESS_TOKEN_TTL_S = 63;

export interface OAuthServers {
  issuer: string;
  mcpUrl: string;
  provider: Provider;
  /** Grant types the token endpoint answered, in order (authorization_code, refresh_token). */
  grants: string[];
  /** Every Authorization header value the MCP server saw (to check none reaches logs). */
  accessTokens: Set<string>;
  /** Ends the person's grant at the authorization server: its refresh token and access tokens stop working. */
  revokeGrants(): Promise<void>;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startOAuthServers(): Promise<OAuthServers> {
  const asServer = createServer();
  const mcpServer = createServer();
  const issuer = await listen(asServer);
  const mcpUrl = `${await listen(mcpServer)}/mcp`;
  const grants: string[] = [];
  const grantIds = new Set<string>();
  const accessTokens = new Set<string>();

  const configuration: Configuration = {
    clients: [],
    features: {
      registration: { enabled: true },
      revocation: { enabled: true },
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpUrl,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (resource !== mcpUrl) throw new errors.InvalidTarget();
          return { scope: `${MCP_SCOPE} ${WRITE_SCOPE}`, audience: mcpUrl, accessTokenTTL: ACCESS_TOKEN_TTL_S, accessTokenFormat: 'opaque' };
        },
      },
    },
    scopes: ['openid', 'offline_access', 'email', MCP_SCOPE],
    claims: { openid: ['sub'], email: ['email'] },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, email: id }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // A refresh token for every client allowed the grant, with or without offline_access.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: ACCESS_TOKEN_TTL_S, AuthorizationCode: 60, Grant: 3600, IdToken: 3600, Interaction: 600, RefreshToken: 3600, Session: 3600 },
  };
  const provider = new Provider(issuer, configuration);
  provider.on('grant.success', (ctx) => grants.push(String(ctx.oidc.params?.grant_type)));

  const callback = provider.callback();
  asServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) return void interact(req, res).catch((error: unknown) => fail(res, error));
    callback(req, res);
  });

  /** The person logs in and consents to what the client asked, at once. */
  async function interact(req: IncomingMessage, res: ServerResponse) {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      return provider.interactionFinished(req, res, { login: { accountId: ACCOUNT } }, { mergeWithLastSubmission: false });
    }
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
    // Everything the client asked for, as the consent screen would list it.
    const missing = details.prompt.details ?? {};
    if (missing.missingOIDCScope?.length) grant!.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant!.addResourceScope(resource, scopes.join(' '));
    const grantId = await grant!.save();
    grantIds.add(grantId);
    return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const found = await provider.AccessToken.find(token);
      if (!found || !(found.grantId && (await provider.Grant.find(found.grantId)))) throw new OAuthError(OAuthErrorCode.InvalidToken, 'unknown, expired or revoked token');
      return {
        token,
        clientId: found.clientId ?? '',
        scopes: (found.scope ?? '').split(' ').filter(Boolean),
        expiresAt: found.exp,
        resource: new URL(String(found.aud)),
      };
    },
  };
  const resourceMetadataUrl = `${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource/mcp`;
  const mcp = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'oauth-protected', version: '1.0.0' });
      server.registerTool('whoami', { description: 'Says that the caller got through.', annotations: { readOnlyHint: true, openWorldHint: false } }, () => ({ content: [{ type: 'text', text: 'hello from the protected server' }] }));
      server.registerTool('add_note', { description: `Needs the scope ${WRITE_SCOPE}.`, annotations: { readOnlyHint: true, openWorldHint: false } }, () => ({ content: [{ type: 'text', text: 'note added' }] }));
      // A careless server: its progress and its error quote the credential the request came with,
      // the error's just where Capstan cuts a tool's error message (200 characters) for its own.
      server.registerTool('careless', { description: 'Fails, quoting the bearer token it was sent.', annotations: { readOnlyHint: true, openWorldHint: false } }, async (ctx) => {
        const token = ctx.http?.authInfo?.token ?? 'none';
        const progressToken = ctx.mcpReq._meta?.progressToken;
        if (progressToken !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: 1, message: `calling upstream with Bearer ${token}` } });
        throw new Error(`${'.'.repeat(154)}refused the request authorized by Bearer ${token}`);
      });
      return server;
    },
    { legacy: 'stateless' },
  );
  mcpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? '/', mcpUrl);
      if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
        return send(res, new Response(JSON.stringify({ resource: mcpUrl, authorization_servers: [issuer], scopes_supported: [MCP_SCOPE], bearer_methods_supported: ['header'] }), { headers: { 'content-type': 'application/json' } }));
      }
      if (url.pathname !== '/mcp') return send(res, new Response('not found', { status: 404 }));
      const header = req.headers.authorization;
      if (header) accessTokens.add(header.replace(/^Bearer\s+/i, ''));
      const body = await readBody(req);
      // add_note asks for more scope than the rest: the step-up case (403 insufficient_scope).
      const needed = isCallOf(body, 'add_note') ? [MCP_SCOPE, WRITE_SCOPE] : [MCP_SCOPE];
      let authInfo: AuthInfo;
      try {
        authInfo = await verifyBearerToken(header, { verifier, requiredScopes: needed, resourceMetadataUrl, expectedResource: new URL(mcpUrl) });
      } catch (error) {
        return send(res, bearerAuthChallengeResponse(error, { requiredScopes: needed, resourceMetadataUrl }));
      }
      const request = new Request(url, { method: req.method ?? 'GET', headers: headersOf(req), ...(body.length > 0 ? { body } : {}) });
      send(res, await mcp.fetch(request, { authInfo }));
    })().catch((error: unknown) => fail(res, error));
  });

  return {
    issuer,
    mcpUrl,
    provider,
    grants,
    accessTokens,
    async revokeGrants() {
      for (const id of grantIds) await (await provider.Grant.find(id))?.destroy();
    },
    async close() {
      await mcp.close();
      for (const server of [asServer, mcpServer]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

/**
 * The person's browser: follows the authorization server's redirects (keeping its cookies, as
 * the login and consent need) until it reaches Capstan's loopback redirect, which it loads.
 */
export async function browser(authorizationUrl: URL | string): Promise<void> {
  const cookies = new Map<string, string>();
  let url = new URL(authorizationUrl);
  const hops: string[] = [];
  for (let hop = 0; hop < 20; hop += 1) {
    hops.push(`${url.pathname}${url.search.slice(0, 60)}`);
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = response.headers.get('location');
    hops.push(`${response.status}`);
    if (!location) {
      if (!response.ok) throw new Error(`the browser got ${response.status} at ${url.href}: ${(await response.text()).slice(0, 300)}`);
      return;
    }
    url = new URL(location, url);
  }
  throw new Error(`too many redirects: ${hops.join(' → ')}`);
}

function isCallOf(body: Buffer, tool: string): boolean {
  try {
    const message = JSON.parse(body.toString('utf8')) as { method?: string; params?: { name?: string } };
    return message.method === 'tools/call' && message.params?.name === tool;
  } catch {
    return false;
  }
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  return headers;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, response: Response): void {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  void (async () => {
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return res.end();
      res.write(value);
    }
  })().catch(() => res.destroy());
}

function fail(res: ServerResponse, error: unknown): void {
  if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
  res.end(String(error instanceof Error ? error.stack : error));
}
