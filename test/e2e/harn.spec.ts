/**
 * A Harn script run from the console: the operator starts it from the Tasks view, watches its
 * output live in the task's Harn run panel, and approves in the Approvals view the call it makes
 * to http_check (which needs confirmation; the script can never confirm it). `harn.command` is
 * test/support/harnDriver.ts, a faithful stand-in for Harn that speaks only Harn's side of the
 * wire protocol (Harn itself cannot be installed here). The target is a loopback server
 * config.json allows, so the test sees the approved request go out.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { driverConfig } from '../support/harnDriver.runs';
import { expect, test } from './fixtures';

interface Target {
  url: string;
  received: string[];
}

const harnTest = test.extend<{ target: Target }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object.
  serveConfig: async ({}, use) => use({ harn: driverConfig(), httpCheck: { allow: ['127.0.0.1/32'] } }),
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object.
  target: async ({}, use) => {
    const received: string[] = [];
    const server: Server = createServer((request, response) => {
      received.push(request.url ?? '');
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await use({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received });
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  },
});

harnTest('run a script from the Tasks view, follow it live, approve its http_check in Approvals', async ({ consolePage, page, dataDir, target }) => {
  harnTest.setTimeout(60_000);
  const script = join(dataDir, 'check_health.harn');
  writeFileSync(
    script,
    JSON.stringify({
      steps: [
        { stderr: '[harn] compiling check_health' },
        { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Checking the service' } } },
        { update: { sessionUpdate: 'tool_call', toolCallId: 'check-1', title: 'http_check', kind: 'fetch', status: 'pending' } },
        { toolCall: 'http_check', args: { url: `${target.url}/health` }, orFail: true },
        { update: { sessionUpdate: 'tool_call_update', toolCallId: 'check-1', status: 'completed' } },
        { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: ': healthy.' } } },
      ],
    }),
  );

  const tasks = await consolePage.openTasks();
  await tasks.getByRole('button', { name: 'Run Harn script…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Run a Harn script' });
  await dialog.getByLabel('Script').fill(script);
  await dialog.getByLabel('Prompt (optional)').fill('is the service up?');
  await dialog.getByRole('button', { name: 'Run script' }).click();
  await expect(dialog).toBeHidden();

  // The run is the session's active task, its output live in the card.
  const card = consolePage.activeTask();
  await expect(card.getByRole('heading', { name: 'Harn: check_health.harn' })).toBeVisible();
  const output = card.getByRole('log', { name: 'Harn run output' });
  await expect(output.getByText('[harn] compiling check_health')).toBeVisible();
  await expect(output.getByText('Checking the service')).toBeVisible();
  await expect(output.locator('[data-kind="permission"], [data-kind="host"]')).toHaveCount(0);
  await expect(card.getByRole('region', { name: 'Harn run' }).locator('.harn-run__facts')).toContainText('harn 0.0.0-driver · takes steers (session/inject)');

  // The call waits for the operator; nothing went out yet.
  await page.getByRole('tablist', { name: 'Activity views' }).getByRole('tab', { name: /^Approvals/ }).click();
  const approvals = page.getByRole('tabpanel', { name: /^Approvals/ });
  const approval = approvals.getByRole('article', { name: 'agent:harn.check_health asks to run http_check' });
  await expect(approval).toBeVisible();
  await expect(approval.getByTestId('approval-arguments')).toContainText(`${target.url}/health`);
  expect(target.received).toEqual([]);
  await approval.getByRole('button', { name: 'Approve and run' }).click();

  // Approved: the call ran once and the script finished naturally, so the task succeeded.
  await expect.poll(() => target.received).toEqual(['/health']);
  await consolePage.openTasks();
  const row = consolePage.taskRow('Finished tasks', 'Harn: check_health.harn');
  await expect(row.locator('[data-task-state="succeeded"]')).toBeVisible({ timeout: 15_000 });
  await row.locator('summary').click();
  const finished = row.getByRole('log', { name: 'Harn run output' });
  await expect(finished.locator('[data-kind="message"]')).toHaveText(['messageChecking the service', 'message: healthy.']);
  await expect(finished.locator('[data-kind="host"]').filter({ hasText: 'http_check: ok' })).toBeVisible();
  await expect(finished.locator('[data-kind="tool_call"]').filter({ hasText: 'completed' })).toBeVisible();
  await expect(row.getByText(/succeeded: Checking the service: healthy\./)).toBeVisible();
});
