import { describe, expect, it } from 'vitest';
import { SECRET_MASK } from '../../shared/mcp';
import { longestFirst, maskEntry, redact, redactClipped, redactJson, redactOpenEnded, secretValues, unmaskEntry } from '../../electron/providers/mcp/secrets';
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
    tail.write('\nnext');
    expect(tail.lines()).toEqual([`${'y'.repeat(STDERR_LINE_CHARS)}…`, 'next']);
  });

  it('shows a line a progress bar redraws with carriage returns as a terminal would: its latest drawing', () => {
    const tail = new StderrTail();
    tail.write(`${'#'.repeat(STDERR_LINE_CHARS * 2)} 10%`);
    tail.write('\r#### 20%\r');
    expect(tail.lines()).toEqual(['#### 20%']);
    tail.write('\n');
    tail.write('\r###### 30%');
    expect(tail.lines()).toEqual(['#### 20%', '###### 30%']);
  });

  it('masks a secret before cutting a line, so the cut leaves no piece of it', () => {
    const secret = 'tok-0123456789abcdef';
    const tail = new StderrTail(() => [secret]);
    tail.write(`${'a'.repeat(STDERR_LINE_CHARS - 5)}${secret} and more\n`);
    // A line that never ends, cut while a secret runs through the cut.
    tail.write(`${'b'.repeat(STDERR_LINE_CHARS - 5)}${secret.slice(0, 9)}`);
    tail.write(`${secret.slice(9)}${'c'.repeat(STDERR_LINE_CHARS * 2)}`);
    const [cut, open] = tail.lines();
    expect(cut).toBe(`${'a'.repeat(STDERR_LINE_CHARS - 5)}${SECRET_MASK.slice(0, 5)}…`);
    expect(open).toBe(`${'b'.repeat(STDERR_LINE_CHARS - 5)}${SECRET_MASK.slice(0, 5)}…`);
    for (const line of tail.lines()) expect(line).not.toMatch(/tok|0123|cdef/);
  });

  it('masks a secret a line still being written stops partway through, and the whole of it once written', () => {
    const tail = new StderrTail(() => ['tok-0123456789abcdef']);
    tail.write('connecting with tok-0123');
    expect(tail.lines()).toEqual([`connecting with ${SECRET_MASK}`]);
    tail.write('456789abcdef as the key');
    expect(tail.lines()).toEqual([`connecting with ${SECRET_MASK} as the key`]);
    tail.write(' (done)\r');
    tail.write('\nto');
    expect(tail.lines()).toEqual([`connecting with ${SECRET_MASK} as the key (done)`, 'to']);
  });
});

describe('masking what a server says', () => {
  const secrets = ['tok-0123456789abcdef', 'pa55word'];

  it('masks every string of an answer, keys too, and hands back the same value when nothing needed it', () => {
    const clean = { content: [{ type: 'text', text: 'fine' }], structuredContent: { n: 1, ok: true, none: null } };
    expect(redactJson(clean, secrets)).toBe(clean);
    const echoed = { content: [{ type: 'text', text: 'sent Bearer tok-0123456789abcdef' }], structuredContent: { 'pa55word': ['x', 'pa55word'] } };
    expect(redactJson(echoed, secrets)).toEqual({ content: [{ type: 'text', text: `sent Bearer ${SECRET_MASK}` }], structuredContent: { [SECRET_MASK]: ['x', SECRET_MASK] } });
    expect(echoed.content[0]!.text).toBe('sent Bearer tok-0123456789abcdef');
  });

  it('masks a secret that holds another whole, not the shorter one inside it first', () => {
    const stored = { command: 'server', env: { SHORT_TOKEN: 'abcd1234', LONG_TOKEN: 'xx-abcd1234-yy' } };
    expect(secretValues(stored)).toEqual(['xx-abcd1234-yy', 'abcd1234']);
    expect(redact('sent xx-abcd1234-yy and abcd1234', secretValues(stored))).toBe(`sent ${SECRET_MASK} and ${SECRET_MASK}`);
    expect(redact('sent xx-abcd1234-yy', longestFirst(['abcd1234', 'xx-abcd1234-yy']))).toBe(`sent ${SECRET_MASK}`);
  });

  it('cuts text only after masking it, however long the text', () => {
    const long = `${'x'.repeat(98)}tok-0123456789abcdef${'y'.repeat(1_000_000)}`;
    expect(redactClipped(long, secrets, 100)).toBe(`${'x'.repeat(98)}${SECRET_MASK.slice(0, 2)}…`);
    expect(redactClipped(`${'x'.repeat(110)}tok-0123456789abcdef${'y'.repeat(1_000_000)}`, secrets, 100)).toBe(`${'x'.repeat(100)}…`);
    expect(redactClipped('short pa55word', secrets, 100)).toBe(`short ${SECRET_MASK}`);
  });

  it('masks the start of a secret an open-ended text stops in, from three characters on', () => {
    expect(redactOpenEnded('key=tok-01', secrets)).toBe(`key=${SECRET_MASK}`);
    expect(redactOpenEnded('a pa5', secrets)).toBe(`a ${SECRET_MASK}`);
    expect(redactOpenEnded('tasks', secrets)).toBe('tasks');
    expect(redactOpenEnded('to', secrets)).toBe('to');
  });
});
