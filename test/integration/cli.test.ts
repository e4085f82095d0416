import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVE_ENV } from '../../electron/server';
import { DATABASE_FILE } from '../../electron/store/database';
import { CLI, startServe } from '../support/serveProcess';

const dataDir = mkdtempSync(join(tmpdir(), 'capstan-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('capstan serve', () => {
  it('prints one console URL carrying the token, serves the API and the console, and exits cleanly on SIGTERM', async () => {
    const serve = await startServe(['--port', '0', '--data-dir', dataDir, '--token', 'cli-secret-0123456789']);
    expect(serve.consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=cli-secret-0123456789$/);
    // The flag works, with a warning: a command line is there for every local user to read.
    expect(serve.stderr()).toMatch(/^capstan: warning: --token is visible to other local users in the process list/m);
    const tools = await fetch(`${serve.url}/tools`, { headers: { authorization: 'Bearer cli-secret-0123456789' } });
    expect(tools.status).toBe(200);
    const page = await fetch(`${serve.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");

    // The build keeps source maps beside the bundle; the gateway serves the bundle, not them.
    const assets = join(dirname(CLI), 'renderer', 'assets');
    const map = readdirSync(assets).find((name) => name.endsWith('.js.map'));
    if (!map) throw new Error(`no source map in ${assets} to ask for`);
    const bundle = await fetch(`${serve.url}/assets/${map.slice(0, -'.map'.length)}`);
    expect(bundle.status).toBe(200);
    // Named by their content, the bundle's files are kept; the page is asked for again, so a new build shows at once.
    expect(bundle.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect((await fetch(`${serve.url}/favicon.svg`)).headers.get('cache-control')).toBe('public, max-age=86400');
    for (const path of [`/assets/${map}`, `/assets/${map.slice(0, -'.map'.length)}.MAP`, `/assets/${map.replace(/\.map$/, '.%6dap')}`]) {
      const response = await fetch(`${serve.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    }

    serve.child.kill('SIGTERM');
    expect(await serve.exited).toEqual({ code: 0, signal: null });
    expect(serve.stderr()).toContain('shutting down');
  });

  // /proc shows the command line a process runs under; other systems have none to read. Node
  // before 22.15 cannot re-execute a process, and serves as started.
  const reexecutes = process.platform === 'linux' && typeof process.execve === 'function';

  it.runIf(reexecutes)("runs under V8's young-generation cap when started without it, keeping the Node flags it was given", { timeout: 60_000 }, async () => {
    const commandLineOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
    const serveArgs = ['serve', '--port', '0', '--data-dir', dataDir];
    const cases = [
      { nodeArgs: [], nodeOptions: '', expected: [process.execPath, '--max-semi-space-size=8', CLI, ...serveArgs] },
      { nodeArgs: ['--no-deprecation'], nodeOptions: '', expected: [process.execPath, '--no-deprecation', '--max-semi-space-size=8', CLI, ...serveArgs] },
      // An operator's own size is theirs: on the command line, in either spelling, or in NODE_OPTIONS, quoted or not.
      { nodeArgs: ['--max-semi-space-size=16'], nodeOptions: '', expected: [process.execPath, '--max-semi-space-size=16', CLI, ...serveArgs] },
      { nodeArgs: ['--max_semi_space_size=16'], nodeOptions: '', expected: [process.execPath, '--max_semi_space_size=16', CLI, ...serveArgs] },
      { nodeArgs: [], nodeOptions: '--max-semi-space-size=32', expected: [process.execPath, CLI, ...serveArgs] },
      { nodeArgs: [], nodeOptions: '"--max-semi-space-size=32"', expected: [process.execPath, CLI, ...serveArgs] },
    ];
    for (const { nodeArgs, nodeOptions, expected } of cases) {
      const serve = await startServe(serveArgs.slice(1), { CAPSTAN_TOKEN: 'cap-token-0123456789', NODE_OPTIONS: nodeOptions }, nodeArgs);
      try {
        // The same process: an exec keeps its id.
        expect(commandLineOf(serve.child.pid!), `${nodeArgs.join(' ')} NODE_OPTIONS=${nodeOptions}`).toEqual(expected);
        expect((await fetch(`${serve.url}/tools`, { headers: { authorization: 'Bearer cap-token-0123456789' } })).status).toBe(200);
      } finally {
        serve.child.kill('SIGTERM');
      }
      expect((await serve.exited).code).toBe(0);
    }
  });

  it.runIf(reexecutes)('leaves a pipe it shares with other programs blocking, as it found it, when it re-executes itself', { timeout: 30_000 }, async () => {
    // One pipe for the shell and the gateway: the shell prints the gateway's pid, then, once the
    // gateway has gone, the flags of its own stdout, the same pipe. Non-blocking (04000) would
    // make the next program that writes there fail with EAGAIN.
    const script = `"$NODE" "$CLI" serve --port 0 --data-dir "$DATA" & echo "pid $!"; wait; grep '^flags' /proc/self/fdinfo/1`;
    const shell = spawn('sh', ['-c', script], { env: { ...process.env, NODE: process.execPath, CLI, DATA: dataDir, CAPSTAN_TOKEN: 'pipe-token-0123456789', NODE_OPTIONS: '' } });
    let out = '';
    const closed = new Promise<void>((resolve) => shell.once('close', () => resolve()));
    shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      const listening = () => {
        const pid = /^pid (\d+)$/m.exec(out)?.[1];
        if (!pid || !out.includes('Capstan console:')) return;
        shell.stdout.off('data', listening);
        process.kill(Number(pid), 'SIGTERM');
        resolve();
      };
      shell.stdout.on('data', listening);
      void closed.then(() => reject(new Error(`the shell ended before the gateway listened:\n${out}`)));
    });
    await closed;
    const flags = /^flags:\s+([0-7]+)$/m.exec(out)?.[1];
    expect(flags, out).toBeDefined();
    expect(Number.parseInt(flags!, 8) & 0o4000).toBe(0);
  });

  it('takes the token from CAPSTAN_TOKEN without a warning, or makes a random one, and exits cleanly on SIGINT', async () => {
    const fromEnv = await startServe(['--port', '0', '--data-dir', dataDir], { CAPSTAN_TOKEN: 'env-token-0123456789' });
    expect(fromEnv.token).toBe('env-token-0123456789');
    fromEnv.child.kill('SIGINT');
    expect((await fromEnv.exited).code).toBe(0);
    expect(fromEnv.stderr()).not.toContain('warning');

    const random = await startServe(['--port', '0', '--data-dir', dataDir], { CAPSTAN_TOKEN: '' });
    expect(random.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect((await fetch(`${random.url}/tools`, { headers: { authorization: `Bearer ${random.token}` } })).status).toBe(200);
    random.child.kill('SIGINT');
    expect((await random.exited).code).toBe(0);
  });

  it('reads the token from --token-file without a warning', async () => {
    const tokenFile = join(dataDir, 'token');
    writeFileSync(tokenFile, 'file-token-0123456789\n', { mode: 0o600 });
    const fromFile = await startServe(['--port', '0', '--data-dir', dataDir, '--token-file', tokenFile]);
    expect(fromFile.token).toBe('file-token-0123456789');
    expect((await fetch(`${fromFile.url}/tools`, { headers: { authorization: 'Bearer file-token-0123456789' } })).status).toBe(200);
    fromFile.child.kill('SIGINT');
    expect((await fromFile.exited).code).toBe(0);
    expect(fromFile.stderr()).not.toContain('warning');
  });

  it('rejects bad options with a usage error and exit code 2', () => {
    for (const args of [['serve', '--port', 'seventy'], ['serve', '--port', '70000'], ['serve', '--bogus'], ['launch']]) {
      const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/capstan/);
    }
    // Four CLI starts in a row: a loaded machine needs more than the default 20 s.
  }, 60_000);

  it('refuses a token shorter than 16 characters or an unreadable token file with exit code 2, never repeating the token', () => {
    const shortFile = join(dataDir, 'short-token');
    writeFileSync(shortFile, 'too-short\n');
    const refusals = [
      [['--token', 'too-short'], /^capstan serve: --token: the token must be at least 16 characters, got 9$/m],
      [['--token-file', shortFile], /^capstan serve: --token-file: the token must be at least 16 characters, got 9$/m],
      [['--token-file', join(dataDir, 'no-such-file')], /^capstan serve: --token-file: cannot read .*no-such-file \(ENOENT\)$/m],
    ] as const;
    for (const [args, reason] of refusals) {
      const result = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dataDir, ...args], { encoding: 'utf8' });
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(reason);
      expect(result.stderr).not.toMatch(/too-short(?!\w)/);
    }
  });

  it('reads each option from its environment variable when the flag is absent', async () => {
    const ownDataDir = mkdtempSync(join(tmpdir(), 'capstan-cli-env-'));
    const skills = join(ownDataDir, 'extra-skills');
    mkdirSync(join(skills, 'release-notes'), { recursive: true });
    writeFileSync(join(skills, 'release-notes', 'SKILL.md'), '---\nname: release-notes\ndescription: Drafts release notes.\n---\nBody.\n');
    const serve = await startServe([], {
      CAPSTAN_PORT: '0',
      CAPSTAN_HOST: '127.0.0.1',
      CAPSTAN_TOKEN: 'env-all-0123456789',
      CAPSTAN_DATA_DIR: ownDataDir,
      CAPSTAN_SKILLS_DIRS: skills,
      CAPSTAN_LOG_LEVEL: 'warn',
    });
    try {
      expect(serve.consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=env-all-0123456789$/);
      const catalog = await fetch(`${serve.url}/catalog`, { headers: { authorization: 'Bearer env-all-0123456789' } });
      expect(JSON.stringify(await catalog.json())).toContain('release-notes');
      expect(existsSync(join(ownDataDir, DATABASE_FILE))).toBe(true);
      // At warn, the info line that announces the gateway is not written.
      expect(serve.stderr()).not.toContain('gateway listening');
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
      rmSync(ownDataDir, { recursive: true, force: true });
    }
  });

  it('refuses a bad environment variable by name, as it refuses a bad flag', () => {
    for (const [name, value] of [['CAPSTAN_PORT', 'many'], ['CAPSTAN_LOG_LEVEL', 'loud'], ['CAPSTAN_TOKEN', 'too-short']] as const) {
      const result = spawnSync(process.execPath, [CLI, 'serve'], { encoding: 'utf8', env: { ...process.env, [name]: value } });
      expect(result.status, name).toBe(2);
      expect(result.stderr, name).toMatch(new RegExp(`^capstan serve: ${name}\\b.* must be`));
    }
  });

  it('names every serve flag with its environment variable in its usage', () => {
    const help = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    for (const [flag, variable] of Object.entries(SERVE_ENV)) expect(help.stdout).toMatch(new RegExp(`--${flag} \\S+ +${variable} `));
  });

  it('reports a port already in use and exits with 1', async () => {
    const first = await startServe(['--port', '0', '--data-dir', dataDir, '--token', 'cli-token-0123456789']);
    const port = new URL(first.url).port;
    const elsewhere = mkdtempSync(join(tmpdir(), 'capstan-cli-port-'));
    try {
      const second = spawnSync(process.execPath, [CLI, 'serve', '--port', port, '--data-dir', elsewhere], { encoding: 'utf8' });
      expect(second.status).toBe(1);
      expect(second.stderr).toContain('EADDRINUSE');
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('refuses a second gateway on a data dir in use, naming the first, which serves on; the folder is free again once the first is gone, even killed', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'capstan-cli-shared-'));
    const token = 'cli-token-0123456789';
    const call = (url: string) =>
      fetch(`${url}/tools/call`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'time_now', arguments: {} }) });
    const first = await startServe(['--port', '0', '--data-dir', shared, '--token', token]);
    try {
      const second = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', shared], { encoding: 'utf8' });
      expect(second.status).toBe(1);
      expect(second.stdout).toBe('');
      expect(second.stderr).toBe(
        `capstan serve: cannot run a gateway: ${shared} is in use by another Capstan (process ${first.child.pid}, gateway ${first.url}); stop it first, or give another --data-dir (or CAPSTAN_DATA_DIR)\n`,
      );
      // The refused start wrote nothing: the first gateway's file still names it, and it serves on.
      expect(readdirSync(shared).sort()).toEqual(['capstan.lock', 'capstan.sqlite', 'capstan.sqlite-shm', 'capstan.sqlite-wal', 'gateway.json', 'ledger.key', 'skills']);
      expect(JSON.parse(readFileSync(join(shared, 'gateway.json'), 'utf8'))).toMatchObject({ pid: first.child.pid, url: first.url });
      expect((await call(first.url)).status).toBe(200);
      const reseal = spawnSync(process.execPath, [CLI, 'ledger', 'reseal', '--data-dir', shared], { encoding: 'utf8' });
      expect(reseal.status).toBe(1);
      expect(reseal.stderr).toContain(`capstan ledger: cannot reseal the ledger: ${shared} is in use by another Capstan (process ${first.child.pid}`);
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }
    // A killed gateway leaves its gateway.json behind, but not the lock: the OS dropped it.
    const third = await startServe(['--port', '0', '--data-dir', shared, '--token', token]);
    try {
      expect((await call(third.url)).status).toBe(200);
    } finally {
      third.child.kill('SIGTERM');
      await third.exited;
    }
    // Both gateways' calls, one chain.
    const verify = spawnSync(process.execPath, [CLI, 'ledger', 'verify', '--data-dir', shared], { encoding: 'utf8' });
    rmSync(shared, { recursive: true, force: true });
    expect(verify.stdout).toMatch(/^ledger ok: \d+ entries/);
  });
});

describe('capstan serve shutdown', () => {
  it('exits at once on SIGTERM even with an idle connection and a half-sent request open', async () => {
    const { connect } = await import('node:net');
    const serve = await startServe(['--port', '0', '--data-dir', dataDir, '--token', 'cli-token-0123456789']);
    const { hostname, port } = new URL(serve.url);
    const idle = connect(Number(port), hostname);
    const partial = connect(Number(port), hostname);
    // The server resets them as it goes down; that is the point.
    for (const socket of [idle, partial]) socket.on('error', () => {});
    await Promise.all([idle, partial].map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
    partial.write('POST /tools/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"tool":');
    const started = Date.now();
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(2000);
    idle.destroy();
    partial.destroy();
  });
});
