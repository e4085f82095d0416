/**
 * The Agent calls view: an agent's calls (its own token over HTTP, the path /mcp calls reach
 * too) appear live in their own dock view, apart from the ledger grid: a call that ran, one
 * waiting for the operator's approval, and what the approved one did. A row's requestId opens
 * its ledger entries. The http_check target is a loopback server config.json allows.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import type { CapstanServer } from './capstanServer';
import { gatewayApi } from './gatewayApi';
import { expect, test } from './fixtures';

const agentCallsTest = test.extend<{ target: string; agentToken: string }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object.
  serveConfig: async ({}, use) =>
    use({
      httpCheck: { allow: ['127.0.0.1/32'] },
      // todo_list only to load, so an agent's call to it is refused (NOT_GRANTED) and recorded as such.
      grants: [
        { pattern: 'builtin:*', authority: 'execute' },
        { pattern: 'builtin:todo_list', authority: 'load' },
      ],
    }),
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object.
  target: async ({}, use) => {
    const server: Server = createServer((_request, response) => response.writeHead(204).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  },
  agentToken: async ({ capstan }, use) => {
    await use((await gatewayApi<{ token: string }>(capstan, 'POST', '/agents', { name: 'build-bot' })).token);
  },
});

async function agentCall(capstan: CapstanServer, token: string, tool: string, args: Record<string, unknown>, requestId: string) {
  const response = await fetch(`${capstan.origin}/tools/call`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool, arguments: args, requestId }),
  });
  return response.status;
}

const row = (page: Page, requestId: string) => page.getByRole('region', { name: 'Agent calls, newest first' }).locator(`[data-request-id="${requestId}"]`);

agentCallsTest('an agent’s calls show live in Agent calls: ran, waiting for approval, then what the approved call did', async ({ consolePage, page, capstan, agentToken, target }) => {
  await page.getByRole('tablist', { name: 'Activity views' }).getByRole('tab', { name: 'Agent calls' }).click();
  const panel = page.getByRole('tabpanel', { name: 'Agent calls' });
  await expect(panel.getByText(/No agent has called a tool yet/)).toBeVisible();

  expect(await agentCall(capstan, agentToken, 'time_now', {}, 'agent-clock-1')).toBe(200);
  const ran = row(page, 'agent-clock-1');
  await expect(ran).toContainText(/Ran ok in/);
  await expect(ran).toContainText('builtin:time_now');
  await expect(ran).toContainText('build-bot');
  // Arguments as the ledger keeps them: a digest, never the values.
  await expect(ran.getByRole('cell').nth(6)).toHaveText(/^[0-9a-f]{10}…$/);

  const waiting = agentCall(capstan, agentToken, 'http_check', { url: `${target}/health`, method: 'HEAD' }, 'agent-check-1');
  const pending = row(page, 'agent-check-1');
  await expect(pending).toContainText('Waiting for approval');
  await expect(panel.getByRole('status')).toContainText('2 agent calls in the ledger entries held here, 1 not finished');

  const { pending: approvals } = await gatewayApi<{ pending: { id: string; requestId: string }[] }>(capstan, 'GET', '/approvals');
  const approval = approvals.find((candidate) => candidate.requestId === 'agent-check-1')!;
  await gatewayApi(capstan, 'POST', `/approvals/${approval.id}`, { decision: 'approve' });
  expect(await waiting).toBe(200);
  await expect(pending).toContainText(/Ran ok in .* · approved/);

  // Newest first.
  await expect(panel.locator('[data-testid="agent-call"]').first()).toHaveAttribute('data-request-id', 'agent-check-1');

  await pending.getByRole('button', { name: /open its ledger entries/ }).click();
  const ledger = page.getByRole('tabpanel', { name: 'Ledger' });
  await expect(ledger.getByLabel('requestId', { exact: true })).toHaveValue('agent-check-1');
  // Its approval request and decision, its confirmation, its start and its end.
  await expect(consolePage.ledgerRows({ requestId: 'agent-check-1', kind: 'approval_decided' })).toHaveCount(1);
  await expect(consolePage.ledgerRows({ requestId: 'agent-check-1', kind: 'call_finished' })).toHaveCount(1);
  await expect(consolePage.ledgerRows()).toHaveCount(await consolePage.ledgerRows({ requestId: 'agent-check-1' }).count());
});

agentCallsTest('a refused agent call shows its code', async ({ consolePage, page, capstan, agentToken }) => {
  void consolePage;
  await page.getByRole('tablist', { name: 'Activity views' }).getByRole('tab', { name: 'Agent calls' }).click();
  expect(await agentCall(capstan, agentToken, 'todo_list', {}, 'agent-refused-1')).toBe(403);
  await expect(row(page, 'agent-refused-1')).toContainText('Refused: NOT_GRANTED');
});
