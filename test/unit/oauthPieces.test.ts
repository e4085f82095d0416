/**
 * The OAuth client's own pieces (electron/providers/mcp/oauth): the token store (owner-only
 * files, sealed by the encrypter it was given, a file sealed by another read as nothing, a server
 * name that cannot leave the folder), the loopback redirect (only its own `state` is taken; an
 * authorization server's error ends the flow with its words) and the operator's wording of
 * failures. The whole flow is in test/integration/mcpOAuth.test.ts and the conformance scenarios.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthorizationServerMismatchError } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { describeAuthFailure } from '../../electron/providers/mcp/oauth/failures';
import { LoopbackRedirect } from '../../electron/providers/mcp/oauth/loopbackRedirect';
import { TokenStore, type Encrypter } from '../../electron/providers/mcp/oauth/tokenStore';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-oauth-unit-'));
  dirs.push(dir);
  return join(dir, 'oauth');
};
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Reverses the bytes: enough to show the file holds the sealed form, not the plain one. */
const reversing: Encrypter = {
  kind: 'test-reverse',
  encrypt: (plain) => Buffer.from(plain, 'utf8').reverse(),
  decrypt: (sealed) => Buffer.from(sealed).reverse().toString('utf8'),
};
const TOKENS = { access_token: 'at-0123456789abcdef', token_type: 'Bearer', refresh_token: 'rt-0123456789abcdef', expires_in: 3600 };

describe('TokenStore', () => {
  it('keeps a server record owner-only, sealed, and reads it back', () => {
    const dir = freshDir();
    const store = new TokenStore(dir, reversing);
    store.write('tracker', { clients: {}, tokens: TOKENS, savedAt: 1 });
    expect(store.read('tracker').tokens).toEqual(TOKENS);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const [file] = readdirSync(dir);
    expect(statSync(join(dir, file!)).mode & 0o777).toBe(0o600);
    const text = readFileSync(join(dir, file!), 'utf8');
    expect(text).not.toContain('at-0123456789abcdef');
    expect(text).not.toContain('rt-0123456789abcdef');
  });

  it('reads a file sealed by another encrypter, or a broken one, as no record', () => {
    const dir = freshDir();
    new TokenStore(dir, reversing).write('tracker', { clients: {}, tokens: TOKENS });
    expect(new TokenStore(dir).read('tracker').tokens).toBeUndefined();
    expect(new TokenStore(dir, reversing).read('missing')).toEqual({ clients: {} });
  });

  it('reads a record once while its file stays the same, and again once another process replaced or removed it', () => {
    const dir = freshDir();
    let decrypted = 0;
    const counting: Encrypter = { ...reversing, decrypt: (sealed) => (decrypted++, reversing.decrypt(sealed)) };
    const gateway = new TokenStore(dir, counting);
    // The CLI's sign-in, in a process of its own, writing the same folder.
    const cli = new TokenStore(dir, reversing);
    cli.write('tracker', { clients: {}, tokens: TOKENS });
    for (let read = 0; read < 5; read += 1) expect(gateway.read('tracker').tokens).toEqual(TOKENS);
    expect(decrypted).toBe(1);
    cli.write('tracker', { clients: {}, tokens: { ...TOKENS, access_token: 'at-refreshed-000000' } });
    expect(gateway.read('tracker').tokens?.access_token).toBe('at-refreshed-000000');
    cli.remove('tracker');
    expect(gateway.read('tracker')).toEqual({ clients: {} });
    expect(decrypted).toBe(2);
  });

  it('names files so that no server name leaves the folder', () => {
    const dir = freshDir();
    const store = new TokenStore(dir);
    store.write('../escape', { clients: {} });
    store.write('..', { clients: {} });
    expect(readdirSync(dir).every((name) => !name.includes('/') && !name.startsWith('..'))).toBe(true);
    expect(readdirSync(join(dir, '..')).sort()).toEqual(['oauth']);
    store.remove('../escape');
    expect(store.read('../escape')).toEqual({ clients: {} });
  });
});

describe('LoopbackRedirect', () => {
  it('takes only the answer with its own state, on 127.0.0.1', async () => {
    const redirect = await LoopbackRedirect.listen('the-state');
    try {
      expect(redirect.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      expect((await fetch(`${redirect.url}?code=stolen&state=other`)).status).toBe(400);
      expect((await fetch(`http://127.0.0.1:${redirect.port}/elsewhere`)).status).toBe(404);
      const page = await fetch(`${redirect.url}?code=the-code&state=the-state&iss=${encodeURIComponent('https://as.example')}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('you can close this tab');
      await expect(redirect.wait(1000)).resolves.toEqual({ code: 'the-code', iss: 'https://as.example' });
    } finally {
      await redirect.close();
    }
  });

  it("ends the flow with the authorization server's refusal, or when the browser never comes back", async () => {
    const refused = await LoopbackRedirect.listen('s');
    await fetch(`${refused.url}?state=s&error=access_denied&error_description=${encodeURIComponent('the person said no')}`);
    await expect(refused.wait(1000)).rejects.toThrow('refused the sign-in: access_denied (the person said no)');
    await refused.close();
    const silent = await LoopbackRedirect.listen('s');
    await expect(silent.wait(50)).rejects.toThrow(/no answer from the browser/);
    await silent.close();
  });
});

describe('describeAuthFailure', () => {
  it('names what the operator can fix', () => {
    expect(describeAuthFailure(new Error('Protected resource https://other.example/mcp does not match expected https://mcp.example/mcp (or origin)'))).toBe(
      "resource mismatch: the server's protected resource metadata names https://other.example/mcp, not https://mcp.example/mcp (its URL in config.json): the server's metadata is wrong, or the URL is not the one it serves",
    );
    expect(describeAuthFailure(new AuthorizationServerMismatchError('https://old.example', 'https://new.example'))).toMatch(/^issuer mismatch: .*old\.example.*new\.example/);
    expect(describeAuthFailure(new Error('Issuer in metadata "https://evil.example" does not match the expected issuer "https://as.example"'))).toMatch(/^issuer mismatch: /);
  });
});
