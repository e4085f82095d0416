/**
 * The built Electron entry, dist/main.cjs, started under plain Node with a stand-in for the
 * `electron` module (test/support/electronStandIn.cjs): Electron's binary cannot be downloaded on
 * these machines. This checks what esbuild's CommonJS bundle can get wrong and the TypeScript
 * tests cannot see: every dependency loads from CommonJS and the real host serves the API.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startElectronMainWithStandIn } from '../support/serveProcess';

const dataDir = mkdtempSync(join(tmpdir(), 'capstan-electron-bundle-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the built Electron entry', () => {
  it('starts the host and the loopback gateway, which answers a tool call', async () => {
    const token = 'bundle-token-0123456789';
    const app = await startElectronMainWithStandIn(['--port', '0', '--data-dir', dataDir], { CAPSTAN_TOKEN: token });
    try {
      // The desktop app prints where it listens, never its token.
      expect(app.consoleUrl).toBe(`${app.url}/`);
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const tools = (await (await fetch(`${app.url}/tools`, { headers })).json()) as { tools: { name: string }[] };
      expect(tools.tools.map((tool) => tool.name)).toContain('time_now');
      // A call hashes its arguments and result (canonical JSON), which a broken interop breaks.
      const call = await fetch(`${app.url}/tools/call`, { method: 'POST', headers, body: JSON.stringify({ tool: 'time_now', arguments: {} }) });
      expect(call.status).toBe(200);
      expect(app.stderr()).not.toContain('error dialog');
    } finally {
      app.child.kill('SIGTERM');
      await app.exited;
    }
  });
});
