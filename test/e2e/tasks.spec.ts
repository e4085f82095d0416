/**
 * The Tasks view: start, steer, supersede, finish, follow up and resume from the console, watch
 * the transitions in the Ledger view, follow changes made by another client without a reload,
 * and see the gateway's refusals with their codes. Unknown outcomes and their acknowledgement run
 * for real against an MCP server that dies mid-call, in mcpFilesystem.spec.ts.
 */
import type { Page, Request } from '@playwright/test';
import type { ConsolePage } from './consolePage';
import { expect, test } from './fixtures';
import { gatewayApi, type TaskAnswer } from './gatewayApi';

const markPage = (page: Page) => page.evaluate('window.__capstanNoReload = true');
const stillSamePage = (page: Page) => page.evaluate<boolean>('window.__capstanNoReload === true');

/** Fills and submits one of the task dialogs (Start, Follow-up, Supersede). */
async function submitTaskDialog(consolePage: ConsolePage, dialogName: string, fields: { title: string; input?: string; requiresSuccess?: boolean }, submit: string) {
  const dialog = consolePage.page.getByRole('dialog', { name: dialogName });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Title').fill(fields.title);
  if (fields.input) await dialog.getByLabel('Input (optional)').fill(fields.input);
  if (fields.requiresSuccess) await dialog.getByRole('checkbox', { name: /Run only if the task before it succeeds/ }).check();
  await dialog.getByRole('button', { name: submit }).click();
  await expect(dialog).toBeHidden();
}

async function finishActive(consolePage: ConsolePage, message: string, outcome: 'Succeeded' | 'Failed') {
  await consolePage.activeTask().getByRole('button', { name: 'Finish…' }).click();
  const dialog = consolePage.page.getByRole('dialog', { name: 'Finish the active task' });
  await dialog.getByLabel('Final message').fill(message);
  await dialog.getByRole('radio', { name: outcome }).check();
  await dialog.getByRole('button', { name: 'Finish', exact: true }).click();
  await expect(dialog).toBeHidden();
}

test('start a titled task, steer it, and supersede it from the console; the transitions show in the Ledger view', async ({ consolePage, page }) => {
  const tasks = await consolePage.openTasks();
  await expect(tasks.getByText('No task is running in this session.')).toBeVisible();

  await tasks.getByRole('button', { name: 'Start task…' }).click();
  await submitTaskDialog(consolePage, 'Start a task', { title: 'printer offline on floor 3', input: 'Users on floor 3 cannot print.' }, 'Start');
  const active = consolePage.activeTask();
  await expect(active.getByRole('heading', { name: 'printer offline on floor 3' })).toBeVisible();
  await expect(active.locator('[data-task-state]').first()).toHaveAttribute('data-task-state', 'running');
  await expect(consolePage.dockTab('Tasks')).toContainText('Running');
  const oldId = await active.getAttribute('data-task-id');

  await active.getByLabel('Steer note').fill('check the switch port first');
  await active.getByRole('button', { name: 'Steer', exact: true }).click();
  await expect(active.getByRole('heading', { name: 'Steers (1)' })).toBeVisible();
  await expect(active).toContainText('check the switch port first');
  await expect(active.getByLabel('Steer note')).toHaveValue('');

  // A manual execution joins the running task.
  await (await consolePage.select('time_now')).getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');
  await expect(active.locator('[data-call-count="ok"]')).toHaveText('1');
  await expect(consolePage.latestExecution.getByTestId('task-id')).toHaveText(`${oldId!.slice(0, 13)}…`);

  // A follow-up waits behind it: the Supersede dialog names it as discarded before anything happens.
  await tasks.getByRole('button', { name: 'Follow-up…' }).click();
  await submitTaskDialog(consolePage, 'Queue a follow-up', { title: 'tell floor 3' }, 'Queue follow-up');
  await active.getByRole('button', { name: 'Supersede…' }).click();
  const supersede = page.getByRole('dialog', { name: 'Supersede the active task' });
  await expect(supersede).toContainText('Supersede first cancels “printer offline on floor 3”');
  await expect(supersede.getByRole('list', { name: 'Follow-ups it discards' })).toHaveText(/tell floor 3/);
  await submitTaskDialog(consolePage, 'Supersede the active task', { title: 'replace the floor 3 printer' }, 'Cancel it and start');
  await expect(consolePage.taskRow('Finished tasks', 'tell floor 3').locator('[data-task-state]')).toHaveAttribute('data-task-state', 'superseded');

  await expect(active.getByRole('heading', { name: 'replace the floor 3 printer' })).toBeVisible();
  await expect(active.locator('[data-task-state]').first()).toHaveAttribute('data-task-state', 'running');
  const old = consolePage.taskRow('Finished tasks', 'printer offline on floor 3');
  await expect(old.locator('[data-task-state]')).toHaveAttribute('data-task-state', 'superseded');
  await expect(old).toContainText('Superseded');
  // The successor's handoff: predecessor superseded, its calls, the conversation so far.
  const handoff = active.locator('details.handoff');
  await expect(handoff).toContainText('printer offline on floor 3');
  await expect(handoff.locator('[data-task-state]').first()).toHaveAttribute('data-task-state', 'superseded');
  await expect(handoff.locator('[data-call-count="ok"]')).toHaveText('1');
  await expect(handoff).toContainText('Users on floor 3 cannot print.');
  await expect(handoff).toContainText('check the switch port first');
  await expect(handoff.getByRole('list', { name: 'Capabilities the successor may discover' })).toContainText('builtin:time_now');

  // The old task's transitions, as the ledger recorded them.
  await old.locator('summary').click();
  await old.getByRole('button', { name: 'Show its ledger entries' }).click();
  const ledger = page.getByRole('tabpanel', { name: /^Ledger/ });
  await expect(ledger.getByLabel('Task')).toHaveValue(oldId!);
  for (const transition of ['new → queued', 'queued → running', 'running → cancelling', 'cancelling → quiescing', 'quiescing → superseded']) {
    await expect(consolePage.ledgerRows({ kind: 'task_transition' }).filter({ hasText: transition })).toHaveCount(1);
  }
  await expect(consolePage.ledgerRows({ kind: 'cancellation' })).toContainText('superseded by a new task');
});

test('a follow-up that requires success is blocked after the active task finishes as failed; Resume runs it', async ({ consolePage, page }) => {
  const tasks = await consolePage.openTasks();
  await tasks.getByRole('button', { name: 'Start task…' }).click();
  await submitTaskDialog(consolePage, 'Start a task', { title: 'printer offline on floor 3' }, 'Start');
  await expect(consolePage.activeTask().getByRole('heading', { name: 'printer offline on floor 3' })).toBeVisible();

  await tasks.getByRole('button', { name: 'Follow-up…' }).click();
  await submitTaskDialog(consolePage, 'Queue a follow-up', { title: 'tell floor 3 it works again', requiresSuccess: true }, 'Queue follow-up');
  const followUp = consolePage.taskRow('Queued and blocked tasks', 'tell floor 3 it works again');
  await expect(followUp.locator('[data-task-state]')).toHaveAttribute('data-task-state', 'queued');
  await expect(followUp).toContainText('only if that succeeds');

  await finishActive(consolePage, 'The printer needs a new fuser; ordered.', 'Failed');
  await expect(consolePage.taskRow('Finished tasks', 'printer offline on floor 3').locator('[data-task-state]')).toHaveAttribute('data-task-state', 'failed');
  await expect(followUp.locator('[data-task-state]')).toHaveAttribute('data-task-state', 'blocked');
  await expect(followUp).toContainText('Blocked: it runs only if “printer offline on floor 3” succeeds');
  await expect(tasks.getByText('No task is running in this session.')).toBeVisible();

  // Cancel asks first, with Keep it focused; kept, the follow-up stays blocked.
  await followUp.getByRole('button', { name: 'Cancel…' }).click();
  const confirmCancel = followUp.getByRole('group', { name: 'Confirm: cancel tell floor 3 it works again' });
  await expect(confirmCancel.getByRole('button', { name: 'Keep it' })).toBeFocused();
  await confirmCancel.getByRole('button', { name: 'Keep it' }).click();
  await expect(confirmCancel).toBeHidden();
  await expect(followUp.locator('[data-task-state]')).toHaveAttribute('data-task-state', 'blocked');

  await followUp.getByRole('button', { name: 'Resume' }).click();
  const active = consolePage.activeTask();
  await expect(active.getByRole('heading', { name: 'tell floor 3 it works again' })).toBeVisible();
  await expect(active.locator('[data-task-state]').first()).toHaveAttribute('data-task-state', 'running');
  await expect(page.getByRole('list', { name: 'Queued and blocked tasks' })).toHaveCount(0);
  const handoff = active.locator('details.handoff');
  await expect(handoff.locator('[data-task-state]').first()).toHaveAttribute('data-task-state', 'failed');
  await expect(handoff.getByTestId('handoff-final-message')).toHaveText('The printer needs a new fuser; ordered.');

  // Cancel task asks first, and keeping it running changes nothing.
  await active.getByRole('button', { name: 'Cancel task…' }).click();
  const cancel = page.getByRole('dialog', { name: 'Cancel the active task' });
  await expect(cancel).toContainText('Cancels “tell floor 3 it works again”: new calls are refused at once');
  await cancel.getByRole('button', { name: 'Keep it running' }).click();
  await expect(active.locator('[data-task-state]').first()).toHaveAttribute('data-task-state', 'running');
  await active.getByRole('button', { name: 'Cancel task…' }).click();
  await cancel.getByRole('button', { name: 'Cancel task', exact: true }).click();
  await expect(consolePage.taskRow('Finished tasks', 'tell floor 3 it works again').locator('[data-task-state]').first()).toHaveAttribute('data-task-state', 'cancelled');
});

test('the Tasks view follows changes another client makes over HTTP, without a reload or polling', async ({ consolePage, page, capstan }) => {
  const tasks = await consolePage.openTasks();
  await expect(tasks.getByText('No task is running in this session.')).toBeVisible();
  await markPage(page);
  const reads: Request[] = [];
  page.on('request', (request) => {
    if (request.method() === 'GET' && new URL(request.url()).pathname === '/tasks') reads.push(request);
  });

  const task = await gatewayApi<TaskAnswer>(capstan, 'POST', '/tasks', { action: 'start', title: 'printer offline on floor 3' });
  const active = consolePage.activeTask();
  await expect(active.getByRole('heading', { name: 'printer offline on floor 3' })).toBeVisible();
  await expect(consolePage.dockTab('Tasks')).toContainText('Running');

  await gatewayApi(capstan, 'POST', '/tasks', { action: 'steer', text: 'a note from a script' });
  await expect(active).toContainText('a note from a script');
  await gatewayApi(capstan, 'POST', '/tools/call', { tool: 'local_status' });
  await expect(active.locator('[data-call-count="ok"]')).toHaveText('1');
  await gatewayApi(capstan, 'POST', '/tasks', { action: 'follow_up', title: 'queued by a script' });
  await expect(consolePage.taskRow('Queued and blocked tasks', 'queued by a script')).toBeVisible();

  await gatewayApi(capstan, 'POST', `/tasks/${task.id}/cancel`);
  await expect(consolePage.taskRow('Finished tasks', 'printer offline on floor 3').locator('[data-task-state]')).toHaveAttribute('data-task-state', 'cancelled');
  // The follow-up did not depend on success: it runs now.
  await expect(active.getByRole('heading', { name: 'queued by a script' })).toBeVisible();

  expect(await stillSamePage(page)).toBe(true);
  expect(reads).toHaveLength(0);
});

test('refused actions show the gateway code and message: TASK_ACTIVE, TASK_NOT_ACTIVE', async ({ consolePage, page, capstan }) => {
  const tasks = await consolePage.openTasks();
  // Another client starts a task while the operator fills in the Start form.
  await tasks.getByRole('button', { name: 'Start task…' }).click();
  const start = page.getByRole('dialog', { name: 'Start a task' });
  await start.getByLabel('Title').fill('printer offline on floor 3');
  await gatewayApi(capstan, 'POST', '/tasks', { action: 'start', title: 'started elsewhere' });
  await start.getByRole('button', { name: 'Start', exact: true }).click();
  const refusal = start.getByRole('alert');
  await expect(refusal).toHaveAttribute('data-error-code', 'TASK_ACTIVE');
  await expect(refusal).toContainText('TASK_ACTIVE: session "operator" already runs "started elsewhere"');
  await start.getByRole('button', { name: 'Close' }).click();

  // Another client finishes it while the operator writes the final message.
  await consolePage.activeTask().getByRole('button', { name: 'Finish…' }).click();
  const finish = page.getByRole('dialog', { name: 'Finish the active task' });
  await finish.getByLabel('Final message').fill('done here');
  await gatewayApi(capstan, 'POST', '/tasks', { action: 'finish', message: 'done elsewhere' });
  await finish.getByRole('button', { name: 'Finish', exact: true }).click();
  await expect(finish.getByRole('alert')).toHaveAttribute('data-error-code', 'TASK_NOT_ACTIVE');
  await expect(finish.getByRole('alert')).toContainText('TASK_NOT_ACTIVE:');
  await page.keyboard.press('Escape');
  await expect(finish).toBeHidden();
  await expect(consolePage.taskRow('Finished tasks', 'started elsewhere')).toContainText('Succeeded');
});

test('an operator who only ran tools is met with what they did, and the runtime words are explained in place', async ({ consolePage }) => {
  await (await consolePage.select('time_now')).getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');
  const tasks = await consolePage.openTasks();
  const card = tasks.getByRole('region', { name: 'Manual calls' });
  await expect(card).toContainText('The tools you ran from this console. Nothing to finish');
  await expect(card.getByRole('button', { name: 'Supersede…' })).toHaveAttribute('title', /start a new one in its place/);
  const words = tasks.locator('details.tasks-view__words');
  await expect(words.locator('dd')).toHaveCount(5);
  await expect(words.locator('dd').first()).toBeHidden();
  await words.getByText('What these words mean').click();
  await expect(words.locator('dt', { hasText: 'Steer' })).toBeVisible();
  await expect(words).toContainText('A note for whoever does the running task’s work');
});
