import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, startServe } from '../support/serveProcess';

const dataDir = mkdtempSync(join(tmpdir(), 'capstan-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('capstan serve', () => {
  it('prints one console URL carrying the token, serves the API and the console, and exits cleanly on SIGTERM', async () => {
    const serve = await startServe(['--port', '0', '--data-dir', dataDir, '--token', 'cli-secret']);
    expect(serve.consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=cli-secret$/);
    const tools = await fetch(`${serve.url}/tools`, { headers: { authorization: 'Bearer cli-secret' } });
    expect(tools.status).toBe(200);
    const page = await fetch(`${serve.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");

    serve.child.kill('SIGTERM');
    expect(await serve.exited).toEqual({ code: 0, signal: null });
    expect(serve.stderr()).toContain('shutting down');
  });

  it('takes the token from CAPSTAN_TOKEN, or makes a random one, and exits cleanly on SIGINT', async () => {
    const fromEnv = await startServe(['--port', '0', '--data-dir', dataDir], { CAPSTAN_TOKEN: 'env-token' });
    expect(fromEnv.token).toBe('env-token');
    fromEnv.child.kill('SIGINT');
    expect((await fromEnv.exited).code).toBe(0);

    const random = await startServe(['--port', '0', '--data-dir', dataDir], { CAPSTAN_TOKEN: '' });
    expect(random.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect((await fetch(`${random.url}/tools`, { headers: { authorization: `Bearer ${random.token}` } })).status).toBe(200);
    random.child.kill('SIGINT');
    expect((await random.exited).code).toBe(0);
  });

  it('rejects bad options with a usage error and exit code 2', () => {
    for (const args of [['serve', '--port', 'seventy'], ['serve', '--port', '70000'], ['serve', '--bogus'], ['launch']]) {
      const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/capstan/);
    }
  });

  it('reports a port already in use and exits with 1', async () => {
    const first = await startServe(['--port', '0', '--data-dir', dataDir, '--token', 't']);
    const port = new URL(first.url).port;
    const second = spawnSync(process.execPath, [CLI, 'serve', '--port', port, '--data-dir', dataDir], { encoding: 'utf8' });
    expect(second.status).toBe(1);
    expect(second.stderr).toContain('EADDRINUSE');
    first.child.kill('SIGTERM');
    await first.exited;
  });
});

describe('capstan serve shutdown', () => {
  it('exits at once on SIGTERM even with an idle connection and a half-sent request open', async () => {
    const { connect } = await import('node:net');
    const serve = await startServe(['--port', '0', '--data-dir', dataDir, '--token', 't']);
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
