/** The one way to start serving: options from flags and environment, and the gateway started from them. */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultDataDir } from '../../electron/paths';
import { DEFAULT_PORT, MIN_TOKEN_LENGTH, parseServeOptions, SERVE_ENV, startServer, UsageError } from '../../electron/server';
import { startTestGateway, type TestGateway } from '../support/gateway';

const refusal = (args: string[], env: NodeJS.ProcessEnv = {}, strict = true) => {
  try {
    parseServeOptions(args, env, { strict, warn: () => {} });
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify({ args, env })}`);
};

describe('parseServeOptions', () => {
  it('has a default for everything', () => {
    const options = parseServeOptions([], {});
    expect(options).toEqual({
      port: DEFAULT_PORT,
      address: '127.0.0.1',
      token: expect.stringMatching(/^[\w-]{32}$/),
      dataDir: defaultDataDir({}),
      skillsDirs: [],
      logLevel: 'info',
    });
    expect(DEFAULT_PORT).toBe(7077);
    expect(parseServeOptions([], {}).token).not.toBe(options.token);
  });

  it('reads each flag, else its one environment variable', () => {
    const env = {
      CAPSTAN_PORT: '9000',
      CAPSTAN_HOST: '127.0.0.2',
      CAPSTAN_TOKEN: 'from-env-0123456789',
      CAPSTAN_DATA_DIR: '/srv/env',
      CAPSTAN_SKILLS_DIRS: ['/srv/x', '', '/srv/y'].join(delimiter),
      CAPSTAN_LOG_LEVEL: 'debug',
    };
    expect(parseServeOptions([], env)).toEqual({
      port: 9000,
      address: '127.0.0.2',
      token: 'from-env-0123456789',
      dataDir: '/srv/env',
      skillsDirs: ['/srv/x', '/srv/y'],
      logLevel: 'debug',
    });
    const flags = ['--port', '8123', '--host', '::1', '--token', 'from-flag-0123456789', '--data-dir', '/srv/flag', '--skills-dir', '/srv/a', '--skills-dir', '/srv/b', '--log-level', 'warn'];
    expect(parseServeOptions(flags, env, { warn: () => {} })).toEqual({
      port: 8123,
      address: '::1',
      token: 'from-flag-0123456789',
      dataDir: '/srv/flag',
      skillsDirs: ['/srv/a', '/srv/b'],
      logLevel: 'warn',
    });
    expect(Object.keys(SERVE_ENV).sort()).toEqual(['data-dir', 'host', 'log-level', 'port', 'skills-dir', 'token', 'token-file']);
  });

  it('counts an empty value as not given', () => {
    expect(parseServeOptions(['--token', ''], { CAPSTAN_TOKEN: 'from-env-0123456789' }).token).toBe('from-env-0123456789');
    expect(parseServeOptions([], { CAPSTAN_TOKEN: '', CAPSTAN_PORT: '' })).toMatchObject({ token: expect.stringMatching(/^[\w-]{32}$/), port: DEFAULT_PORT });
  });

  it('accepts ports 0 to 65535', () => {
    expect(parseServeOptions(['--port', '0'], {}).port).toBe(0);
    expect(parseServeOptions(['--port=65535'], {}).port).toBe(65535);
  });

  it('refuses a bad value, naming the flag or variable it came from', () => {
    for (const port of ['seventy', '70000', '-1', '80.5', '0x50', '1e3', ' 80']) {
      expect(refusal([`--port=${port}`]), port).toBe(`--port must be an integer from 0 to 65535, got "${port}"`);
    }
    expect(refusal([], { CAPSTAN_PORT: 'many' })).toBe('CAPSTAN_PORT must be an integer from 0 to 65535, got "many"');
    expect(refusal(['--log-level', 'loud'])).toBe('--log-level must be one of fatal, error, warn, info, debug, trace, silent, got "loud"');
    expect(refusal([], { CAPSTAN_LOG_LEVEL: 'INFO' })).toMatch(/^CAPSTAN_LOG_LEVEL must be one of /);
  });

  it('is strict for the CLI: unknown flags, arguments and missing values are refused', () => {
    expect(refusal(['--bogus'])).toMatch(/--bogus/);
    expect(refusal(['extra'])).toMatch(/extra/);
    expect(refusal(['--port'])).toMatch(/--port/);
  });

  it('leaves Chromium’s flags and arguments alone for Electron, but still wants values', () => {
    const options = parseServeOptions(['--enable-logging', '--host-rules=MAP * 127.0.0.1', '--port', '8123', 'extra', '--skills-dir', '/srv/a'], {}, { strict: false });
    expect(options).toMatchObject({ port: 8123, address: '127.0.0.1', skillsDirs: ['/srv/a'] });
    expect(refusal(['--port'], {}, false)).toBe('--port needs a value');
    expect(refusal(['--skills-dir'], {}, false)).toBe('--skills-dir needs a value');
    expect(refusal([], { CAPSTAN_PORT: '-5' }, false)).toMatch(/^CAPSTAN_PORT must be/);
  });

  describe('the token', () => {
    let dir: string;
    const warnings: string[] = [];
    const parse = (args: string[], env: NodeJS.ProcessEnv = {}) => parseServeOptions(args, env, { warn: (message) => void warnings.push(message) });
    const file = (name: string, text: string, mode = 0o600) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      chmodSync(path, mode);
      return path;
    };

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'capstan-token-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('comes from --token-file or CAPSTAN_TOKEN_FILE, read once without its line ending', () => {
      warnings.length = 0;
      expect(parse(['--token-file', file('flag', 'token-from-a-file-0001\n')]).token).toBe('token-from-a-file-0001');
      expect(parse([], { CAPSTAN_TOKEN_FILE: file('env', 'token-from-a-file-0002\r\n') }).token).toBe('token-from-a-file-0002');
      expect(parse([], { CAPSTAN_TOKEN_FILE: file('bare', 'token-from-a-file-0003') }).token).toBe('token-from-a-file-0003');
      expect(warnings).toEqual([]);
    });

    it('warns when it comes on the command line, which every local user can read in the process list', () => {
      warnings.length = 0;
      expect(parse([], { CAPSTAN_TOKEN: 'token-from-the-env-01' }).token).toBe('token-from-the-env-01');
      expect(warnings).toEqual([]);
      expect(parse(['--token', 'token-on-the-command-line']).token).toBe('token-on-the-command-line');
      expect(warnings).toEqual([expect.stringMatching(/^--token is visible to other local users in the process list; prefer --token-file FILE or CAPSTAN_TOKEN$/)]);
      // Without a listener the warning goes to stderr.
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      try {
        parseServeOptions(['--token', 'token-on-the-command-line'], {});
        expect(stderr).toHaveBeenCalledWith(expect.stringMatching(/^capstan: warning: --token is visible/));
      } finally {
        stderr.mockRestore();
      }
    });

    it.skipIf(process.platform === 'win32')('warns when its file is open to other users', () => {
      warnings.length = 0;
      const path = file('open', 'token-in-an-open-file-1\n', 0o644);
      expect(parse(['--token-file', path]).token).toBe('token-in-an-open-file-1');
      expect(warnings).toEqual([`${path} can be read or written by other users (mode 644); chmod 600 it`]);
    });

    it('takes a flag over both variables, but refuses two sources at one level', () => {
      const env = { CAPSTAN_TOKEN: 'token-from-the-env-01', CAPSTAN_TOKEN_FILE: file('env-both', 'token-from-a-file-0004') };
      expect(parse(['--token-file', file('flag-wins', 'token-from-a-file-0005')], env).token).toBe('token-from-a-file-0005');
      expect(refusal([], env)).toBe('CAPSTAN_TOKEN and CAPSTAN_TOKEN_FILE both give the token; keep one');
      expect(refusal(['--token', 'token-on-the-command-line', '--token-file', env.CAPSTAN_TOKEN_FILE])).toBe('--token and --token-file both give the token; keep one');
    });

    it(`refuses one shorter than ${MIN_TOKEN_LENGTH} characters from any source, without echoing it`, () => {
      expect(MIN_TOKEN_LENGTH).toBe(16);
      expect(refusal(['--token', 'fifteen-chars15'])).toBe('--token: the token must be at least 16 characters, got 15');
      expect(refusal([], { CAPSTAN_TOKEN: 'short' })).toBe('CAPSTAN_TOKEN: the token must be at least 16 characters, got 5');
      expect(refusal(['--token-file', file('short', 'short\n')])).toBe('--token-file: the token must be at least 16 characters, got 5');
      expect(refusal([], { CAPSTAN_TOKEN_FILE: file('short-env', 'shorter') })).toBe('CAPSTAN_TOKEN_FILE: the token must be at least 16 characters, got 7');
      expect(parse(['--token', 'sixteen-chars-16']).token).toBe('sixteen-chars-16');
    });

    it('refuses an empty or unreadable file, and characters a header cannot carry', () => {
      expect(refusal(['--token-file', file('empty', '\n')])).toBe(`--token-file: ${join(dir, 'empty')} is empty`);
      expect(refusal(['--token-file', join(dir, 'missing')])).toBe(`--token-file: cannot read ${join(dir, 'missing')} (ENOENT)`);
      expect(refusal(['--token-file', dir])).toMatch(/^--token-file: cannot read .* \(EISDIR\)$/);
      expect(refusal(['--token-file', file('two-lines', 'token-line-one-0001\n\n')])).toBe('--token-file: the token may hold only printable ASCII characters, without spaces');
      expect(refusal([], { CAPSTAN_TOKEN: 'a token with spaces' })).toMatch(/^CAPSTAN_TOKEN: the token may hold only printable ASCII/);
      expect(refusal([], { CAPSTAN_TOKEN: 'jeton-accentué-0123' })).toMatch(/^CAPSTAN_TOKEN: the token may hold only printable ASCII/);
    });
  });

  it('is documented once in docs/cli.md: every flag with its environment variable', () => {
    const cli = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const section = /## `capstan serve` flags\n([\s\S]*?)\n##? /.exec(cli)?.[1] ?? '';
    for (const [flag, variable] of Object.entries(SERVE_ENV)) {
      expect(section, flag).toMatch(new RegExp(`^\\| \`--${flag}[^|]*\\| \`${variable}\` \\|`, 'm'));
    }
  });
});

describe('startServer', () => {
  let server: TestGateway;
  let taken: number;

  beforeAll(async () => {
    server = await startTestGateway();
    taken = Number(new URL(server.url).port);
  });

  afterAll(async () => {
    await server?.stop();
  });

  const token = 'start-server-token-0123';
  const options = (extra: { anyPortIfTaken?: boolean } = {}) => ({ address: '127.0.0.1', port: taken, token, logger: pino({ level: 'silent' }), ...extra });

  it('fails when the port is taken, unless asked to take any free port instead', async () => {
    await expect(startServer(server.host, options())).rejects.toMatchObject({ code: 'EADDRINUSE' });
    const fallback = await startServer(server.host, options({ anyPortIfTaken: true }));
    try {
      expect(Number(new URL(fallback.url).port)).not.toBe(taken);
      expect((await fetch(`${fallback.url}/tools`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      await fallback.close();
    }
  });
});
