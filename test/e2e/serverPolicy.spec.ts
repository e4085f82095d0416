/**
 * An MCP server's policy set in the Providers panel, against a real `capstan serve` and the
 * fixture server: "Confirm every call" locks its tools in the registry at once, a per-tool risk
 * floor shows on that tool alone, what each tool declared shows beside what Capstan decided, and
 * an override offers nothing below what the annotations decide. config.json is read back.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import { fixtureStdio, mcpConfig } from './mcpServers';

test.describe.configure({ timeout: 120_000 });
test.use({ serveConfig: mcpConfig({ fixture: fixtureStdio() }) });

const READY = { timeout: 30_000 };

test('set "confirm every call" for a server and see its tools locked at once; a per-tool override shows on that tool', async ({ consolePage, page, dataDir }) => {
  await expect(consolePage.tool('meta')).toHaveAttribute('data-state', 'read-only', READY);
  await expect(consolePage.tool('big')).toContainText('low risk');

  await page.getByRole('button', { name: /^Providers/ }).click();
  const providers = page.getByRole('dialog', { name: 'Providers' });
  const row = providers.getByRole('listitem', { name: 'fixture' });
  await expect(row.locator('[data-status="ready"]')).toBeVisible(READY);
  await row.getByRole('button', { name: 'Policy…' }).click();

  const policy = page.getByRole('dialog', { name: 'Policy of fixture' });
  const tools = policy.getByRole('table', { name: 'Tools of fixture' });
  // What the server declared, beside what Capstan decided from it.
  const plain = tools.locator('tr[data-tool="plain"]');
  await expect(plain.getByTestId('declared')).toHaveText('none declared');
  await expect(plain.getByTestId('decided')).toContainText('high risk');
  await expect(plain.getByLabel('Confirm every call of plain')).toBeChecked();
  await expect(plain.getByLabel('Confirm every call of plain')).toBeDisabled();
  // Nothing below the annotations' conservative reading is offered.
  await expect(plain.getByLabel('Risk at least for plain')).toBeDisabled();
  const big = tools.locator('tr[data-tool="big"]');
  await expect(big.getByTestId('declared')).toHaveText('read-only, closed world');
  await expect(big.getByLabel('Risk at least for big').locator('option')).toHaveText(['as decided', 'at least medium', 'at least high']);
  await expect(policy.getByText('Accept new tools without review')).toBeVisible();
  await expect(policy.getByLabel('Accept new tools without review')).not.toBeChecked();
  await expect(policy.getByText(/held until you review and accept it/)).toBeVisible();

  await policy.getByLabel('Confirm every call', { exact: true }).check();
  await big.getByLabel('Risk at least for big').selectOption('high');
  await policy.getByRole('button', { name: 'Save policy' }).click();
  await expect(policy.getByRole('status')).toHaveText('Saved: in effect now.');
  await expect(big.getByTestId('in-effect')).toContainText('high risk');
  await expect(big.getByTestId('in-effect')).toContainText('fixture:big');

  const config = JSON.parse(await readFile(join(dataDir, 'config.json'), 'utf8')) as { toolPolicy?: unknown };
  expect(config.toolPolicy).toEqual([
    { pattern: 'fixture:*', needConfirm: true },
    { pattern: 'fixture:big', riskLevel: 'high' },
  ]);

  await policy.getByRole('button', { name: 'Back to the providers' }).click();
  await expect(row).toBeFocused();
  await page.keyboard.press('Escape');
  // At once, without a restart or a reload: every tool of the server is locked, and the floor is big's alone.
  await expect(consolePage.tool('meta')).toHaveAttribute('data-state', 'locked');
  await expect(consolePage.tool('big')).toHaveAttribute('data-state', 'locked');
  await expect(consolePage.tool('big')).toContainText('high risk');
  await expect(consolePage.tool('meta')).toContainText('low risk');
});
