import { describe, expect, it } from 'vitest';
import { SECRET_MASK } from '../../shared/mcp';
import { maskEntry, redact, secretValues, unmaskEntry } from '../../electron/providers/mcp/secrets';
import { STDERR_LINE_CHARS, STDERR_LINES, StderrTail } from '../../electron/providers/mcp/stderrTail';

describe('secret-looking values in an MCP server entry', () => {
  const http = {
    url: 'https://user:hunter2-long-password@mcp.example/mcp?api_key=abcdefghijklmnopqrst&region=eu',
    headers: { Authorization: 'Bearer abcdefghijklmnopqrstuvwxyz', 'X-Api-Key': 'short', Accept: 'application/json', 'X-Trace': 'sk-live-0123456789abcdef' },
  };
  const stdio = {
    command: 'server',
    args: ['--token', 'plain-looking-value', '--api-key=zzzzzzzzzzzz', 'ghp_abcdefghijklmnopqrstuvwxyz0123', '--verbose', '/srv/data'],
    env: { GITHUB_TOKEN: 'gh-token-value', DB_PASSWORD: 'pw', HOME: '/home/op', OPENAI_KEY: 'sk-abcdefghijklmnopqrst' },
  };

  it('masks by name and by shape, never showing more than a scheme and four characters', () => {
    const { entry, masked } = maskEntry(http);
    expect(entry.headers).toEqual({
      Authorization: `Bearer ${SECRET_MASK}wxyz`,
      'X-Api-Key': SECRET_MASK,
      Accept: 'application/json',
      'X-Trace': `${SECRET_MASK}cdef`,
    });
    expect(entry.url).toBe(`https://user:${SECRET_MASK}word@mcp.example/mcp?api_key=${SECRET_MASK}qrst&region=eu`);
    expect(masked).toEqual(['headers.Authorization', 'headers.X-Api-Key', 'headers.X-Trace', 'url']);

    const shown = maskEntry(stdio);
    expect(shown.entry.args).toEqual(['--token', `${SECRET_MASK}alue`, `--api-key=${SECRET_MASK}`, `${SECRET_MASK}0123`, '--verbose', '/srv/data']);
    expect(shown.entry.env).toEqual({ GITHUB_TOKEN: SECRET_MASK, DB_PASSWORD: SECRET_MASK, HOME: '/home/op', OPENAI_KEY: `${SECRET_MASK}qrst` });
    expect(JSON.stringify([shown, maskEntry(http)])).not.toMatch(/hunter2|abcdefghij|gh-token-value|zzzz|plain-looking/);
  });

  it('keeps the stored value for a mask sent back unchanged, takes a new value, refuses an edited mask', () => {
    const shown = maskEntry(stdio).entry;
    expect(unmaskEntry(shown, stdio)).toEqual(stdio);
    expect(unmaskEntry({ ...shown, env: { ...shown.env, GITHUB_TOKEN: 'new-token' } }, stdio).env?.GITHUB_TOKEN).toBe('new-token');
    expect(() => unmaskEntry({ ...shown, env: { GITHUB_TOKEN: `${SECRET_MASK}x` } }, stdio)).toThrow(/env.GITHUB_TOKEN/);
    // A mask for a server never saved has nothing to keep.
    expect(() => unmaskEntry(shown, undefined)).toThrow(/masked value/);
    const httpShown = maskEntry(http).entry;
    expect(unmaskEntry(httpShown, http)).toEqual(http);
  });

  it('collects the secret values, so they can be masked wherever they turn up', () => {
    const secrets = secretValues(stdio);
    expect(redact('token=gh-token-value, key sk-abcdefghijklmnopqrst', secrets)).toBe(`token=${SECRET_MASK}, key ${SECRET_MASK}`);
  });
});

describe("a url server's OAuth client secret", () => {
  it('is masked in views, restored from a mask sent back, and known as a secret', () => {
    const stored = { url: 'https://mcp.example/mcp', oauth: { clientId: 'capstan', clientSecret: 'cs-0123456789abcdefXYZW' } };
    const shown = maskEntry(stored);
    expect(shown.masked).toEqual(['oauth.clientSecret']);
    expect(shown.entry.oauth).toEqual({ clientId: 'capstan', clientSecret: `${SECRET_MASK}XYZW` });
    expect(unmaskEntry(shown.entry, stored)).toEqual(stored);
    expect(() => unmaskEntry({ ...stored, oauth: { clientId: 'capstan', clientSecret: `x${SECRET_MASK}` } }, stored)).toThrow(/oauth\.clientSecret/);
    expect(secretValues(stored)).toContain('cs-0123456789abcdefXYZW');
  });
});

describe('the stderr tail', () => {
  it('keeps the last lines, each bounded, with known secrets masked', () => {
    const tail = new StderrTail(() => ['s3cr3t-value']);
    for (let line = 0; line < STDERR_LINES + 20; line += 1) tail.write(`line ${line}\n`);
    tail.write(`${'x'.repeat(STDERR_LINE_CHARS * 3)}\nleaked s3cr3t-value here\npartial`);
    const lines = tail.lines();
    expect(lines.length).toBe(STDERR_LINES + 1);
    expect(lines.at(-3)).toHaveLength(STDERR_LINE_CHARS + 1);
    expect(lines.at(-2)).toBe(`leaked ${SECRET_MASK} here`);
    expect(lines.at(-1)).toBe('partial');
    expect(lines).not.toContain('line 0');
  });

  it('never holds more than one line of a line that does not end', () => {
    const tail = new StderrTail();
    for (let i = 0; i < 100; i += 1) tail.write('y'.repeat(10_000));
    expect(tail.lines()[0]!.length).toBeLessThanOrEqual(STDERR_LINE_CHARS);
  });
});
