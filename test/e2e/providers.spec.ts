/** The Providers panel: each provider's figures and a switch that takes effect at once. */
import { expect, test } from './fixtures';
import { BUILTIN } from '../support/builtins';

test('disabling the builtin provider removes its tools from the list and the figures; enabling brings them back', async ({ consolePage, page }) => {
  await consolePage.select('time_now');
  await page.getByRole('button', { name: /^Providers/ }).click();
  const panel = page.getByRole('dialog', { name: 'Providers' });
  const builtin = panel.getByRole('listitem', { name: 'builtin' });
  await expect(builtin).toContainText('builtin');
  await expect(builtin.getByTestId('tools')).toHaveText(String(BUILTIN.total));
  await expect(builtin.getByTestId('skills')).toHaveText('0');
  await expect(builtin.getByTestId('diagnostics')).toHaveText('0');
  await expect(builtin.getByTestId('binding-generation')).toHaveText(/^\d+$/);
  await expect(panel.getByRole('listitem', { name: 'skills' })).toBeVisible();

  const toggle = builtin.getByRole('switch');
  await expect(toggle).toBeChecked();
  await toggle.uncheck();
  await expect(toggle).not.toBeChecked();
  await expect(builtin).toContainText('out of the catalog while it is disabled');
  await page.keyboard.press('Escape');

  await expect(consolePage.toolCards).toHaveCount(0);
  await expect(consolePage.count('total')).toHaveText('0');
  await expect(consolePage.count('direct')).toHaveText('0');
  await expect(consolePage.count('confirm')).toHaveText('0');
  await expect(page.getByText('builtin:time_now is no longer in the catalog')).toBeVisible();
  await expect(page.getByRole('button', { name: /^Providers/ })).toContainText('1 off');

  await page.getByRole('button', { name: /^Providers/ }).click();
  await toggle.check();
  await expect(toggle).toBeChecked();
  await page.keyboard.press('Escape');
  await expect(consolePage.toolCards).toHaveCount(BUILTIN.total);
  await expect(consolePage.count('total')).toHaveText(String(BUILTIN.total));
  await expect(consolePage.count('direct')).toHaveText(String(BUILTIN.direct));
  // The selection survived: the tool is back in the detail pane, runnable.
  await consolePage.detail('time_now').getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');
});
