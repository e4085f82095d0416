/** server-everything as a real child process, over stdio and Streamable HTTP, through the real gateway. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { everythingStdio, waitForProvider } from '../support/mcp';

describe('server-everything over stdio', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ config: { mcpServers: { everything: everythingStdio() } } });
    await waitForProvider(gateway.host, 'everything');
  }, 60_000);
  afterAll(() => gateway?.stop());

  it('lists every tool with its schema and declared annotations', async () => {
    const { body } = await gateway.call({ tool: 'everything:echo', arguments: { message: 'hello' } });
    console.log(JSON.stringify(body));
    const catalog = (await (await gateway.request('/catalog')).json()) as { capabilities: { contract: Record<string, unknown> }[]; providers: unknown[] };
    console.log(JSON.stringify(catalog.providers));
    console.log(catalog.capabilities.filter((c) => c.contract.provider === 'everything').map((c) => `${String(c.contract.name)} ${String(c.contract.riskLevel)} ${String(c.contract.needConfirm)} ${String(c.contract.mutating)}`));
    expect(body.ok).toBe(true);
  });
});
