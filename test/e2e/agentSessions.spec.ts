/**
 * The Tasks view groups agents' sessions under their agent and folds the ended ones: an agent
 * with its own token makes twenty sessions through the gateway and ends fifteen, while the page
 * follows live; the group shows five active sessions and "15 ended sessions" folded (not even
 * rendered), which opens from the keyboard. An agent with no active session is listed collapsed,
 * with its counts. A reload (GET /tasks, not events) groups them the same way.
 */
import type { Locator } from '@playwright/test';
import type { CapstanServer } from './capstanServer';
import type { ConsolePage } from './consolePage';
import { expect, test } from './fixtures';
import { gatewayApi } from './gatewayApi';

/** An agent's own client of the gateway: the same helper, with the agent's token. */
async function agentClient(capstan: CapstanServer, name: string): Promise<CapstanServer> {
  const { token } = await gatewayApi<{ token: string }>(capstan, 'POST', '/agents', { name });
  return { ...capstan, token };
}

const sessionGroup = (tasks: Locator, agent: string) => tasks.getByRole('region', { name: `Sessions of ${agent}`, exact: true });
const groupToggle = (group: Locator, agent: string) => group.getByRole('button', { name: new RegExp(`^${agent} `) });

async function expectCounts(group: Locator, counts: { active: number; ended: number; running: number; waiting: number }) {
  for (const [name, value] of Object.entries(counts)) await expect(group.locator(`[data-session-count="${name}"]`)).toHaveText(`${value} ${name}`);
}

async function expectFoldedGroup(consolePage: ConsolePage) {
  const tasks = await consolePage.openTasks();
  const group = sessionGroup(tasks, 'agent:ci-bot');
  await expect(groupToggle(group, 'agent:ci-bot')).toHaveAttribute('aria-expanded', 'true');
  await expectCounts(group, { active: 5, ended: 15, running: 5, waiting: 0 });
  await expect(group.getByRole('list', { name: 'Active sessions of agent:ci-bot' }).getByRole('listitem')).toHaveCount(5);
  const fold = group.getByRole('button', { name: '15 ended sessions' });
  await expect(fold).toHaveAttribute('aria-expanded', 'false');
  // Folded rows are not rendered at all.
  await expect(group.locator('[data-session-id]')).toHaveCount(5);
  return { tasks, group, fold };
}

test('agent sessions are grouped under their agent, ended ones folded, live and after a reload', async ({ consolePage, page, capstan }) => {
  const tasks = await consolePage.openTasks();
  // Only the console's session: no session list yet.
  await expect(tasks.getByRole('navigation', { name: 'Task sessions' })).toHaveCount(0);

  const ciBot = await agentClient(capstan, 'ci-bot');
  const session = (index: number) => `agent:ci-bot/s${index}`;
  await Promise.all(
    Array.from({ length: 20 }, (_, index) => gatewayApi(ciBot, 'POST', '/tasks', { action: 'start', sessionId: session(index), title: `build ${index}` })),
  );
  const group = sessionGroup(tasks, 'agent:ci-bot');
  await expectCounts(group, { active: 20, ended: 0, running: 20, waiting: 0 });
  await expect(group.locator('[data-session-id]')).toHaveCount(20);

  // Fifteen end, as the agent finishes them; the page follows the events.
  await Promise.all(
    Array.from({ length: 15 }, (_, index) => gatewayApi(ciBot, 'POST', '/tasks', { action: 'finish', sessionId: session(index), message: `build ${index} passed` })),
  );
  await expectFoldedGroup(consolePage);
  const active = group.getByRole('list', { name: 'Active sessions of agent:ci-bot' });
  for (let index = 15; index < 20; index++) await expect(active.locator(`[data-session-id="${session(index)}"]`)).toContainText(`Running: build ${index}`);

  // Another agent whose only session has ended: listed, collapsed, with its counts.
  const nightly = await agentClient(capstan, 'nightly');
  await gatewayApi(nightly, 'POST', '/tasks', { action: 'start', title: 'nightly sweep' });
  await gatewayApi(nightly, 'POST', '/tasks', { action: 'finish', message: 'swept' });
  const quiet = sessionGroup(tasks, 'agent:nightly');
  await expectCounts(quiet, { active: 0, ended: 1, running: 0, waiting: 0 });
  await expect(groupToggle(quiet, 'agent:nightly')).toHaveAttribute('aria-expanded', 'false');
  await expect(quiet.locator('[data-session-id]')).toHaveCount(0);
  // The operator's own sessions come first, as before.
  await expect(tasks.getByRole('list', { name: 'Your sessions' }).getByRole('listitem')).toHaveText([/^operator \(this console\)/]);

  // The same after a reload, from GET /tasks alone.
  await page.reload();
  const { fold } = await expectFoldedGroup(consolePage);

  // The fold opens and closes from the keyboard.
  await fold.focus();
  await page.keyboard.press('Enter');
  await expect(fold).toHaveAttribute('aria-expanded', 'true');
  const ended = group.getByRole('list', { name: 'Ended sessions of agent:ci-bot' });
  await expect(ended.getByRole('listitem')).toHaveCount(15);
  await expect(ended.locator(`[data-session-id="${session(3)}"]`)).toContainText('Ended');

  // An ended session opens in the view: its finished task, with the agent's final message.
  await ended.locator(`[data-session-id="${session(3)}"]`).getByRole('button').click();
  await expect(tasks.getByTestId('current-session')).toHaveText(`Session ${session(3)}`);
  await expect(ended.locator(`[data-session-id="${session(3)}"]`).getByRole('button')).toHaveAttribute('aria-current', 'true');
  const finished = consolePage.taskRow('Finished tasks', 'build 3');
  await expect(finished.locator('[data-task-state]')).toHaveAttribute('data-task-state', 'succeeded');
  await finished.locator('summary').click();
  await expect(finished).toContainText('build 3 passed');

  await fold.focus();
  await page.keyboard.press('Space');
  await expect(fold).toHaveAttribute('aria-expanded', 'false');
  await expect(ended).toHaveCount(0);

  // The collapsed agent opens from the keyboard too, showing its fold, not its rows.
  await groupToggle(quiet, 'agent:nightly').focus();
  await page.keyboard.press('Enter');
  await expect(groupToggle(quiet, 'agent:nightly')).toHaveAttribute('aria-expanded', 'true');
  await expect(quiet.getByText('No active session.')).toBeVisible();
  await expect(quiet.getByRole('button', { name: '1 ended session' })).toHaveAttribute('aria-expanded', 'false');

  // A session that starts again becomes active at once.
  await gatewayApi(ciBot, 'POST', '/tasks', { action: 'start', sessionId: session(0), title: 'build 0, again' });
  await expectCounts(group, { active: 6, ended: 14, running: 6, waiting: 0 });
  await expect(group.getByRole('button', { name: '14 ended sessions' })).toBeVisible();
});
