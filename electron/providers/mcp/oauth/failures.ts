/**
 * An OAuth failure as the operator reads it: the cause named when the operator can fix it (the
 * server's metadata names another resource, an authorization server answers as another issuer,
 * the authorization server refused the client or the grant), the SDK's own words otherwise. Never
 * a token: the SDK's messages carry none, and an authorization server's error_description is
 * shortened.
 */
import { AuthorizationServerMismatchError, OAuthError } from '@modelcontextprotocol/client';

export function describeAuthFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof AuthorizationServerMismatchError) {
    return `issuer mismatch: the credentials belong to the authorization server ${error.recordedIssuer}, but the server now names ${error.currentIssuer}; sign in again`;
  }
  const resource = /^Protected resource (\S+) does not match expected (\S+)/.exec(message);
  if (resource) {
    return `resource mismatch: the server's protected resource metadata names ${resource[1]}, not ${resource[2]} (its URL in config.json): the server's metadata is wrong, or the URL is not the one it serves`;
  }
  if (/issuer/i.test(message) && /(mismatch|does not match|expected|differs|unexpected)/i.test(message)) {
    return `issuer mismatch: ${message}; the authorization server's metadata or its answer names another issuer than the one Capstan discovered (a misconfigured or impersonated authorization server)`;
  }
  if (error instanceof OAuthError) return `the authorization server refused: ${error.code}${error.message && error.message !== error.code ? ` (${error.message.slice(0, 200)})` : ''}`;
  return message.slice(0, 300);
}
