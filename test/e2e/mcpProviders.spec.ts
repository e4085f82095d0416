/**
 * MCP servers managed from the Providers panel, against real server processes: add one with the
 * form (checked in the page first), see it connect and its tools appear, keep its secret masked
 * and replace it, disable, enable and remove it; a server whose command fails shows failed with
 * its stderr and Retry now; a Streamable HTTP server with an Authorization header connects, the
 * header masked; a server added after a manual call runs its tools from the next manual call at
 * once. config.json is read back from the data dir to see what was saved.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { SECRET_MASK } from '../../shared/mcp';
import { expect, test } from './fixtures';
import { FIXTURE, mcpConfig, startEverythingHttp } from './mcpServers';

test.describe.configure({ timeout: 120_000 });

const READY = { timeout: 30_000 };
const SECRET = 's3cret-value-0123456789';

const readConfig = async (dataDir: string) => JSON.parse(await readFile(join(dataDir, 'config.json'), 'utf8')) as { mcpServers?: Record<string, Record<string, unknown>> };

async function openProviders(page: Page) {
  await page.getByRole('button', { name: /^Providers/ }).click();
  const panel = page.getByRole('dialog', { name: 'Providers' });
  await expect(panel).toBeVisible();
  return panel;
}

test('add a server in the Providers panel, see it connect and its tools appear, keep its secret masked, replace it, disable, enable and remove it', async ({ consolePage, page, dataDir }) => {
  const panel = await openProviders(page);
  await panel.getByRole('button', { name: 'Add MCP server…' }).click();
  const form = page.getByRole('dialog', { name: 'Add an MCP server' });

  // Checked in the page: the errors are announced, tied to their fields, and the first one takes the focus.
  await form.getByRole('button', { name: 'Add server' }).click();
  await expect(form.getByRole('alert')).toContainText('2 fields need attention');
  const name = form.getByLabel('Name', { exact: true });
  await expect(name).toBeFocused();
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(name).toHaveAccessibleDescription(/Give the server a name\./);
  await expect(form.getByLabel('Command', { exact: true })).toHaveAccessibleDescription(/Give the command that starts the server\./);
  await name.fill('builtin');
  await expect(name).toHaveAccessibleDescription(/reserved for a builtin provider/);

  await name.fill('fixture');
  await form.getByLabel('Command', { exact: true }).fill(process.execPath);
  await form.getByRole('button', { name: 'Add argument' }).click();
  await form.getByLabel('Argument 1', { exact: true }).fill(FIXTURE);
  await form.getByRole('button', { name: 'Add variable' }).click();
  await form.getByLabel('Name', { exact: true }).last().fill('FIXTURE_TOKEN');
  const secretInput = form.getByLabel('Value', { exact: true });
  await expect(secretInput).toHaveAttribute('type', 'password');
  await secretInput.fill(SECRET);
  await form.getByRole('button', { name: 'Add server' }).click();

  // Back to the list, the keyboard on the new server; it connects and lists its tools.
  const row = panel.getByRole('listitem', { name: 'fixture' });
  await expect(row).toBeFocused();
  await expect(row.locator('[data-status="ready"]')).toBeVisible(READY);
  await expect(row.getByTestId('tools')).not.toHaveText('0');
  await expect(row.getByTestId('protocol-version')).not.toBeEmpty();
  expect((await readConfig(dataDir)).mcpServers?.fixture).toEqual({ command: process.execPath, args: [FIXTURE], env: { FIXTURE_TOKEN: SECRET } });

  // The secret comes back masked, never in full, anywhere on the page.
  await row.getByRole('button', { name: 'Edit…' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit fixture' });
  const masked = edit.getByLabel('Value', { exact: true });
  await expect(masked).toHaveAttribute('readonly', '');
  expect(await masked.inputValue()).toContain(SECRET_MASK);
  expect(await page.content()).not.toContain(SECRET);
  // Saving without touching it keeps the stored value.
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(row.locator('[data-status="ready"]')).toBeVisible(READY);
  expect((await readConfig(dataDir)).mcpServers?.fixture?.env).toEqual({ FIXTURE_TOKEN: SECRET });
  // Replacing it saves the new one.
  await row.getByRole('button', { name: 'Edit…' }).click();
  await edit.getByRole('button', { name: 'Replace the stored value of FIXTURE_TOKEN' }).click();
  await expect(edit.getByLabel('Value', { exact: true })).toBeFocused();
  await page.keyboard.type('rotated-value');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(row).toBeVisible();
  await expect.poll(async () => (await readConfig(dataDir)).mcpServers?.fixture?.env).toEqual({ FIXTURE_TOKEN: 'rotated-value' });

  // Its tools are in the list; `plain` declares no annotations, so it needs confirmation.
  await page.keyboard.press('Escape');
  await consolePage.filterInput.fill('plain');
  await expect(consolePage.tool('plain')).toHaveAttribute('data-state', 'locked', READY);

  // Disabled: the switch is saved in config.json, the process ends, the tools leave the catalog.
  await openProviders(page);
  await row.getByRole('switch').uncheck();
  await expect(row.locator('[data-status="disabled"]')).toBeVisible();
  expect((await readConfig(dataDir)).mcpServers?.fixture?.enabled).toBe(false);
  await page.keyboard.press('Escape');
  await expect(consolePage.tool('plain')).toHaveCount(0);

  await openProviders(page);
  await row.getByRole('switch').check();
  await expect(row.locator('[data-status="ready"]')).toBeVisible(READY);

  await row.getByRole('button', { name: 'Remove…' }).click();
  const confirm = row.getByRole('group', { name: 'Confirm: remove fixture' });
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await confirm.getByRole('button', { name: 'Remove fixture' }).click();
  await expect(row).toHaveCount(0);
  expect((await readConfig(dataDir)).mcpServers).toEqual({});
  await page.keyboard.press('Escape');
  await expect(consolePage.tool('plain')).toHaveCount(0);
});

test.describe('a server whose command fails', () => {
  const failing = { command: process.execPath, args: ['-e', "console.error('boom: missing API key'); process.exit(1)"] };
  test.use({ serveConfig: mcpConfig({ broken: failing }) });

  test('shows failed with its reason, its stderr and the next attempt; Retry now tries again; fixing it in the form connects it', async ({ page, consolePage }) => {
    const panel = await openProviders(page);
    const row = panel.getByRole('listitem', { name: 'broken' });
    await expect(row.locator('[data-status="failed"]')).toBeVisible(READY);
    await expect(row.getByTestId('status-reason')).not.toBeEmpty();
    const stderr = row.getByLabel('stderr of broken');
    await expect(stderr).toContainText('boom: missing API key');
    await expect(stderr).toHaveAttribute('tabindex', '0');
    await expect(row.getByTestId('retry-at')).toContainText('Next attempt at');

    const reconnect = page.waitForResponse((response) => new URL(response.url()).pathname === '/providers/broken/reconnect');
    await row.getByRole('button', { name: 'Retry now' }).click();
    expect((await reconnect).status()).toBe(200);
    await expect(row.locator('[data-status="failed"]')).toBeVisible(READY);
    await expect(stderr).toContainText('boom: missing API key');

    // Fixed in the form: the argument becomes the fixture server.
    await row.getByRole('button', { name: 'Edit…' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit broken' });
    await edit.getByRole('button', { name: 'Remove argument 2' }).click();
    await edit.getByLabel('Argument 1', { exact: true }).fill(FIXTURE);
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect(row.locator('[data-status="ready"]')).toBeVisible(READY);
    await page.keyboard.press('Escape');
    await consolePage.filterInput.fill('plain');
    await expect(consolePage.tool('plain')).toBeVisible();
  });
});

test('a Streamable HTTP server added with a bearer token connects; the header comes back masked and is kept when saved unchanged', async ({ consolePage, page, dataDir }) => {
  const remote = await startEverythingHttp();
  try {
    const panel = await openProviders(page);
    await panel.getByRole('button', { name: 'Add MCP server…' }).click();
    const form = page.getByRole('dialog', { name: 'Add an MCP server' });
    await form.getByLabel('Name', { exact: true }).fill('remote');
    await form.getByRole('radio', { name: /Streamable HTTP/ }).check();
    await expect(form.getByLabel('Command', { exact: true })).toHaveCount(0);
    const url = form.getByLabel('URL', { exact: true });
    await url.fill('ftp://127.0.0.1/mcp');
    await form.getByRole('button', { name: 'Add header' }).click();
    await form.getByLabel('Name', { exact: true }).last().fill('Authorization');
    await form.getByLabel('Value', { exact: true }).fill(`Bearer ${SECRET}`);
    await form.getByRole('button', { name: 'Add server' }).click();
    await expect(url).toBeFocused();
    await expect(url).toHaveAccessibleDescription(/Must be an http:\/\/ or https:\/\/ URL\./);
    await url.fill(remote.url);
    await form.getByRole('button', { name: 'Add server' }).click();

    const row = panel.getByRole('listitem', { name: 'remote' });
    await expect(row.locator('[data-status="ready"]')).toBeVisible(READY);
    await expect(row).toContainText('Streamable HTTP');
    await row.getByRole('button', { name: 'Edit…' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit remote' });
    await expect(edit.getByRole('radio', { name: /Streamable HTTP/ })).toBeChecked();
    expect(await edit.getByLabel('Value', { exact: true }).inputValue()).toMatch(new RegExp(`^Bearer ${SECRET_MASK}`));
    expect(await page.content()).not.toContain(SECRET);
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect(row.locator('[data-status="ready"]')).toBeVisible(READY);
    expect((await readConfig(dataDir)).mcpServers?.remote).toEqual({ url: remote.url, headers: { Authorization: `Bearer ${SECRET}` } });

    await page.keyboard.press('Escape');
    await consolePage.filterInput.fill('get-sum');
    await expect(consolePage.tool('get-sum')).toContainText('remote');
  } finally {
    await remote.stop();
  }
});

test('a server added after the console ran a tool runs its tools from a manual call at once (the manual task moves on to the new catalog)', async ({ consolePage, page, capstan }) => {
  // A manual call first: it starts the operator's manual-calls task, before the server exists.
  await (await consolePage.select('time_now')).getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');

  const panel = await openProviders(page);
  await panel.getByRole('button', { name: 'Add MCP server…' }).click();
  const form = page.getByRole('dialog', { name: 'Add an MCP server' });
  await form.getByLabel('Name', { exact: true }).fill('late');
  await form.getByLabel('Command', { exact: true }).fill(process.execPath);
  await form.getByRole('button', { name: 'Add argument' }).click();
  await form.getByLabel('Argument 1', { exact: true }).fill(FIXTURE);
  await form.getByRole('button', { name: 'Add server' }).click();
  await expect(panel.getByRole('listitem', { name: 'late' }).locator('[data-status="ready"]')).toBeVisible(READY);
  await page.keyboard.press('Escape');

  // One-click for the fixture's read-only `meta`, then a manual call of it from the console.
  const settings = await fetch(`${capstan.origin}/settings`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${capstan.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ whitelist: ['time_now', 'local_status', 'meta'] }),
  });
  expect(settings.status).toBe(200);
  // Another client changed the settings: a reload reads them (the view itself is kept, in the address).
  await page.reload();
  await expect(consolePage.count('total')).not.toBeEmpty({ timeout: 15_000 });
  await consolePage.filterInput.fill('meta');
  const detail = await consolePage.select('meta');
  await detail.getByRole('button', { name: 'Execute' }).click();
  const entry = consolePage.latestExecution;
  await expect(entry).toContainText('meta');
  await expect(entry).toContainText('ok');
  await expect(entry).not.toContainText('NOT_GRANTED');
});
