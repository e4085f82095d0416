/** One-click tools (the client whitelist): edited in Settings, kept by the gateway, so they outlive reloads and restarts. */
import { startCapstan } from './capstanServer';
import { expect, GATEWAY_STOPPED, test } from './fixtures';
import { BUILTIN } from '../support/builtins';

test('adding todo_list to the one-click tools survives a reload and a gateway restart', async ({ consolePage, page, capstan, dataDir, pageProblems }) => {
  // The page tries to reconnect until it is pointed at the new gateway.
  pageProblems.allow(GATEWAY_STOPPED);
  await expect(consolePage.tool('todo_list')).toHaveAttribute('data-state', 'read-only');

  await page.getByRole('button', { name: 'Settings' }).click();
  const settings = consolePage.settingsDialog();
  await expect(settings).toBeVisible();
  await settings.getByRole('checkbox', { name: /todo_list/ }).check();
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(settings).toBeHidden();
  await expect(consolePage.tool('todo_list')).toHaveAttribute('data-state', 'executable');
  await expect(consolePage.toolsInState('executable')).toHaveCount(3);

  await page.reload();
  await expect(consolePage.tool('todo_list')).toHaveAttribute('data-state', 'executable');

  // A new gateway on the same data dir: new port, new token, same settings.
  await capstan.stop();
  const restarted = await startCapstan(dataDir);
  try {
    await consolePage.open(restarted.consoleUrl);
    await expect(consolePage.tool('todo_list')).toHaveAttribute('data-state', 'executable');
    await expect(consolePage.toolsInState('executable')).toHaveCount(3);
    const detail = await consolePage.select('todo_list');
    await detail.getByRole('button', { name: 'Execute' }).click();
    await expect(consolePage.latestExecution).toContainText('ok');
  } finally {
    await restarted.stop();
  }
});

test('removing a tool from the one-click tools makes it view only; Cancel discards changes', async ({ consolePage, page }) => {
  const settings = consolePage.settingsDialog();
  await page.getByRole('button', { name: 'Settings' }).click();
  await settings.getByRole('checkbox', { name: /local_status/ }).uncheck();
  await settings.getByRole('button', { name: 'Cancel' }).click();
  await expect(settings).toBeHidden();
  await expect(consolePage.tool('local_status')).toHaveAttribute('data-state', 'executable');

  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(settings.getByRole('checkbox', { name: /local_status/ })).toBeChecked();
  await settings.getByRole('checkbox', { name: /local_status/ }).uncheck();
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(consolePage.tool('local_status')).toHaveAttribute('data-state', 'read-only');
});

test('tools that need confirmation cannot be one-click, and Settings says why; tools that write data are marked', async ({ consolePage, page }) => {
  await page.getByRole('button', { name: 'Settings' }).click();
  const settings = consolePage.settingsDialog();
  // Focus moves into the dialog, on its first tab, and Escape closes it.
  await expect(settings.getByRole('tab', { name: 'One-click tools' })).toBeFocused();
  await expect(settings.getByRole('checkbox')).toHaveCount(BUILTIN.direct);
  await expect(settings.getByRole('checkbox', { name: /http_check/ })).toHaveCount(0);
  await expect(settings).toContainText('http_check');
  await expect(settings).toContainText('cannot be one-click');
  // The list marks the tools that write data, so "one-click" never reads as "harmless".
  await expect(settings.getByRole('listitem').filter({ hasText: 'note_add' })).toContainText('Writes data');
  await expect(settings.getByRole('listitem').filter({ hasText: 'time_now' })).not.toContainText('Writes data');
  await page.keyboard.press('Escape');
  await expect(settings).toBeHidden();
  await expect(consolePage.tool('http_check')).toHaveAttribute('data-state', 'locked');
});
