/** The one way to start serving: options from flags and environment, and the gateway started from them. */
import { readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../electron/paths';
import { DEFAULT_PORT, parseServeOptions, SERVE_ENV, startServer, UsageError } from '../../electron/server';
import { startTestGateway, type TestGateway } from '../support/gateway';

const refusal = (args: string[], env: NodeJS.ProcessEnv = {}, strict = true) => {
  try {
    parseServeOptions(args, env, { strict });
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
      CAPSTAN_TOKEN: 'from-env',
      CAPSTAN_DATA_DIR: '/srv/env',
      CAPSTAN_SKILLS_DIRS: ['/srv/x', '', '/srv/y'].join(delimiter),
      CAPSTAN_LOG_LEVEL: 'debug',
    };
    expect(parseServeOptions([], env)).toEqual({
      port: 9000,
      address: '127.0.0.2',
      token: 'from-env',
      dataDir: '/srv/env',
      skillsDirs: ['/srv/x', '/srv/y'],
      logLevel: 'debug',
    });
    const flags = ['--port', '8123', '--host', '::1', '--token', 'from-flag', '--data-dir', '/srv/flag', '--skills-dir', '/srv/a', '--skills-dir', '/srv/b', '--log-level', 'warn'];
    expect(parseServeOptions(flags, env)).toEqual({
      port: 8123,
      address: '::1',
      token: 'from-flag',
      dataDir: '/srv/flag',
      skillsDirs: ['/srv/a', '/srv/b'],
      logLevel: 'warn',
    });
    expect(Object.keys(SERVE_ENV).sort()).toEqual(['data-dir', 'host', 'log-level', 'port', 'skills-dir', 'token']);
  });

  it('counts an empty value as not given', () => {
    expect(parseServeOptions(['--token', ''], { CAPSTAN_TOKEN: 'from-env' }).token).toBe('from-env');
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

  it('is documented once in the README: every flag with its environment variable', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = /### `capstan serve` flags\n([\s\S]*?)\n###? /.exec(readme)?.[1] ?? '';
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

  const options = (extra: { anyPortIfTaken?: boolean } = {}) => ({ address: '127.0.0.1', port: taken, token: 't', logger: pino({ level: 'silent' }), ...extra });

  it('fails when the port is taken, unless asked to take any free port instead', async () => {
    await expect(startServer(server.host, options())).rejects.toMatchObject({ code: 'EADDRINUSE' });
    const fallback = await startServer(server.host, options({ anyPortIfTaken: true }));
    try {
      expect(Number(new URL(fallback.url).port)).not.toBe(taken);
      expect((await fetch(`${fallback.url}/tools`, { headers: { authorization: 'Bearer t' } })).status).toBe(200);
    } finally {
      await fallback.close();
    }
  });
});
