/**
 * The console's Content-Security-Policy, the same in Electron (a meta tag in index.html) and in
 * a browser (a response header from `capstan serve`): only the bundle's own scripts and styles,
 * and no connections but the gateway it came from.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');
