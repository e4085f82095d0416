/**
 * A real Capstan host and gateway with one extra provider of test tools, run as its own process
 * so a test can kill it with SIGKILL mid-call, or stop it with SIGTERM as `capstan serve` stops
 * (test/integration/restart.test.ts). Production
 * builds have no test tools, so this entry is bundled by the test itself with esbuild.
 * Usage: node host-with-test-tools.mjs <data dir> <token>
 */
import pino from 'pino';
import { createHost } from '../../electron/host';
import { announce, startServer } from '../../electron/server';
import { markerWrite, politeRead, stubbornWrite } from './runtime';

const [dataDir, token] = process.argv.slice(2) as [string, string];
const logger = pino({ level: 'warn' }, pino.destination(2));
const host = await createHost({ dataDir, logger });
await host.catalog.addProvider({ name: 'test', kind: 'builtin', load: () => ({ tools: [stubbornWrite, markerWrite, politeRead], skills: [], diagnostics: [] }) });
const gateway = await startServer(host, { address: '127.0.0.1', port: 0, token, logger });
announce(gateway, host);
// Stops as `capstan serve` does (cli/main.ts): the gateway, then the host.
process.once('SIGTERM', () => {
  void (async () => {
    await gateway.close();
    await host.close();
    process.exit(0);
  })();
});
