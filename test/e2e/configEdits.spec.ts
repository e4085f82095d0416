/**
 * config.json edited while the console is open, against a real `capstan serve`: a server added
 * in the file shows up in the Providers panel and the registry without a restart or a reload,
 * and an invalid edit shows a diagnostic in the Diagnostics view, cleared when the file is fixed.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { fixtureStdio, mcpConfig } from './mcpServers';

test.describe.configure({ timeout: 120_000 });
test.use({ serveConfig: mcpConfig({}) });

const READY = { timeout: 30_000 };
const editConfig = async (dataDir: string, change: (config: Record<string, unknown>) => Record<string, unknown>) => {
  const path = join(dataDir, 'config.json');
  await writeFile(path, JSON.stringify(change(JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>), null, 2));
};
const markPage = (page: Page) => page.evaluate('window.__capstanNoReload = true');
const stillSamePage = (page: Page) => page.evaluate<boolean>('window.__capstanNoReload === true');

test('a server added to config.json shows in the console without a restart; an invalid edit shows a diagnostic until fixed', async ({ consolePage, page, dataDir }) => {
  await markPage(page);
  await editConfig(dataDir, (config) => ({ ...config, mcpServers: { edited: fixtureStdio() } }));

  await page.getByRole('button', { name: /^Providers/ }).click();
  const providers = page.getByRole('dialog', { name: 'Providers' });
  const row = providers.getByRole('listitem', { name: 'edited' });
  await expect(row.locator('[data-status="ready"]')).toBeVisible(READY);
  await expect(row.getByTestId('tools')).not.toHaveText('0');
  await page.keyboard.press('Escape');

  await expect(consolePage.count('diagnostics')).toHaveText('0');
  await writeFile(join(dataDir, 'config.json'), '{ "mcpServers": ');
  await expect(consolePage.count('diagnostics')).toHaveText('1', READY);
  await page.getByRole('button', { name: /^Diagnostics/ }).click();
  const panel = page.getByRole('dialog', { name: 'Diagnostics' });
  const diagnostic = panel.getByRole('listitem');
  await expect(diagnostic).toContainText('gateway');
  await expect(diagnostic).toContainText(/config\.json is not valid JSON/);
  await expect(diagnostic).toContainText('the gateway keeps its last good configuration');

  // The last good configuration stays: the server is still there; a fix clears the diagnostic.
  await writeFile(join(dataDir, 'config.json'), JSON.stringify(mcpConfig({ edited: fixtureStdio() }), null, 2));
  await expect(panel).toContainText('No diagnostics', READY);
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: /^Providers/ }).click();
  await expect(providers.getByRole('listitem', { name: 'edited' }).locator('[data-status="ready"]')).toBeVisible();
  expect(await stillSamePage(page)).toBe(true);
});
