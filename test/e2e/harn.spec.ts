/**
 * A Harn script run from the console: the operator starts it from the Tasks view, watches its
 * output live in the task's Harn run panel, and approves in the Approvals view the call it makes
 * to http_check (which needs confirmation; the script can never confirm it). `harn.command` is
 * test/support/harnDriver.ts, a faithful stand-in for Harn that speaks only Harn's side of the
 * wire protocol (Harn itself cannot be installed here). The target is a loopback server
 * config.json allows, so the test sees the approved request go out. Then, with the driver playing
 * Harn v0.7.50, its option-less `session/request_permission` and a script's `request_approval`
 * (harn.hitl.requested) approved from Approvals; and with harn-serve 0.10.x, a steer from the
 * task's card that the script accepts (`session/inject`).
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

/** Starts a script from the Tasks view and returns the active task's card. */
async function runScript(consolePage: Parameters<Parameters<typeof harnTest>[2]>[0]['consolePage'], page: Parameters<Parameters<typeof harnTest>[2]>[0]['page'], script: string) {
  const tasks = await consolePage.openTasks();
  await tasks.getByRole('button', { name: 'Run Harn script…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Run a Harn script' });
  await dialog.getByLabel('Script').fill(script);
  await dialog.getByRole('button', { name: 'Run script' }).click();
  await expect(dialog).toBeHidden();
  return consolePage.activeTask();
}

harnTest('Harn v0.7.50: its permission request and a request_approval are approved from Approvals', async ({ consolePage, page, dataDir }) => {
  harnTest.setTimeout(90_000);
  const script = join(dataDir, 'release.harn');
  writeFileSync(
    script,
    JSON.stringify({
      version: '0.7.50',
      steps: [
        { permission: { toolCallId: 'call-1', toolName: 'write_file', rawInput: { path: 'CHANGELOG.md' } }, declaredPaths: ['CHANGELOG.md'], orFail: true },
        { hitl: 'request_approval', action: 'tag release 1.2.0', args: { tag: 'v1.2.0' }, timeoutMs: 60_000 },
        { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Released.' } } },
      ],
    }),
  );
  const card = await runScript(consolePage, page, script);
  await expect(card.getByRole('heading', { name: 'Harn: release.harn' })).toBeVisible();
  await expect(card.getByRole('region', { name: 'Harn run' }).locator('.harn-run__facts')).toContainText('harn 0.7.50');

  await page.getByRole('tablist', { name: 'Activity views' }).getByRole('tab', { name: /^Approvals/ }).click();
  const approvals = page.getByRole('tabpanel', { name: /^Approvals/ });
  // v0.7.50 sends no options: the operator still sees the tool, its arguments, the policy and the declared paths.
  const permission = approvals.getByRole('article', { name: 'agent:harn.release asks to run harn.permission:write_file' });
  await expect(permission).toBeVisible();
  await expect(permission.getByTestId('approval-arguments')).toContainText('CHANGELOG.md');
  await expect(permission).toContainText('Declared paths: CHANGELOG.md');
  await permission.getByRole('button', { name: 'Approve and run' }).click();

  const approval = approvals.getByRole('article', { name: 'agent:harn.release asks to run harn.hitl:approval' });
  await expect(approval).toBeVisible({ timeout: 15_000 });
  await expect(approval.getByTestId('approval-arguments')).toContainText('tag release 1.2.0');
  await approval.getByRole('button', { name: 'Approve and run' }).click();

  await consolePage.openTasks();
  const row = consolePage.taskRow('Finished tasks', 'Harn: release.harn');
  await expect(row.locator('[data-task-state="succeeded"]')).toBeVisible({ timeout: 15_000 });
  await row.locator('summary').click();
  const lines = row.getByRole('log', { name: 'Harn run output' });
  await expect(lines.locator('[data-kind="permission"]').filter({ hasText: 'write_file: allowed by the operator' })).toBeVisible();
  await expect(lines.locator('[data-kind="permission"]').filter({ hasText: /approved/ }).last()).toBeVisible();
  await expect(row.getByText(/succeeded: Released\./)).toBeVisible();
});

harnTest('Harn 0.10: a steer from the task card is accepted by the script (session/inject)', async ({ consolePage, page, dataDir }) => {
  harnTest.setTimeout(60_000);
  const script = join(dataDir, 'steered.harn');
  writeFileSync(script, JSON.stringify({ version: '0.10', steps: [{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Waiting for a steer' } } }, { waitForSteer: true }] }));
  const card = await runScript(consolePage, page, script);
  const output = card.getByRole('log', { name: 'Harn run output' });
  await expect(output.getByText('Waiting for a steer')).toBeVisible();
  await expect(card.getByRole('region', { name: 'Harn run' }).locator('.harn-run__facts')).toContainText('harn 0.10.8 · takes steers (session/inject)');
  await card.getByLabel('Steer note').fill('check the lockfile first');
  await card.getByRole('button', { name: 'Steer' }).click();

  await consolePage.openTasks();
  const row = consolePage.taskRow('Finished tasks', 'Harn: steered.harn');
  await expect(row.locator('[data-task-state="succeeded"]')).toBeVisible({ timeout: 15_000 });
  await row.locator('summary').click();
  await expect(row.getByRole('log', { name: 'Harn run output' }).getByText('steer accepted by the script (session/inject, mode steer, message msg-1)')).toBeVisible();
});
