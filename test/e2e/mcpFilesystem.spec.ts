/**
 * Real MCP servers doing real work through the console's one call path: server-filesystem on a
 * temporary folder (reads run at once, writes ask for confirmation), and Capstan's fixture server
 * for what the reference servers do not offer: a mutating call whose server process dies mid-call
 * (an unknown outcome that blocks writes until the operator acknowledges it), an `isError` answer,
 * and a server that stops connecting while its tools stay listed.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import type { ConsolePage } from './consolePage';
import { expect, test as base } from './fixtures';
import { filesystemStdio, fixtureStdio, mcpConfig, providerState, send, whitelist } from './mcpServers';

const test = base.extend<{ folder: string }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object.
  folder: async ({}, use) => {
    const folder = await mkdtemp(join(tmpdir(), 'capstan-e2e-files-'));
    await writeFile(join(folder, 'notes.txt'), 'first line\n');
    await use(folder);
    await rm(folder, { recursive: true, force: true });
  },
  serveConfig: async ({ folder }, use) => use(mcpConfig({ files: filesystemStdio(folder), fixture: fixtureStdio() })),
});
test.describe.configure({ timeout: 90_000 });

const READY = { timeout: 30_000 };

/** The list is virtualized: a tool far down is found by searching for it, as an operator would. */
async function findTool(consolePage: ConsolePage, name: string): Promise<Locator> {
  await consolePage.filterInput.fill(name);
  await expect(consolePage.tool(name)).toBeVisible(READY);
  return consolePage.select(name);
}

/** write_file through Review and run: the operator sees the exact arguments, then confirms. */
async function writeThroughReview(consolePage: ConsolePage, path: string, content: string): Promise<Locator> {
  const write = await findTool(consolePage, 'write_file');
  await write.getByLabel('path').fill(path);
  await write.getByLabel('content').fill(content);
  await write.getByRole('button', { name: 'Review and run' }).click();
  const review = consolePage.reviewDialog();
  await expect(review).toContainText(content);
  await review.getByRole('button', { name: 'Confirm and run' }).click();
  return consolePage.latestExecution;
}

test('server-filesystem: reading runs without confirmation, writing asks for it and then writes', async ({ consolePage, page, capstan, folder }) => {
  await whitelist(capstan, ['read_text_file']);
  await page.reload();
  const read = await findTool(consolePage, 'read_text_file');
  await expect(read).toHaveAttribute('data-state', 'executable');
  await read.getByLabel('path').fill(join(folder, 'notes.txt'));
  await read.getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');
  await expect(consolePage.latestExecution.locator('[data-block="text"]')).toHaveText('first line\n');

  // destructiveHint: confirmation required, whatever the whitelist says.
  await expect(consolePage.tool('read_text_file')).toBeVisible();
  const entry = await writeThroughReview(consolePage, join(folder, 'notes.txt'), 'written from the console');
  await expect(entry).toContainText('ok');
  await expect(entry).toContainText('confirmed');
  expect(await readFile(join(folder, 'notes.txt'), 'utf8')).toBe('written from the console');
});

test('a mutating call whose server dies mid-call leaves an unknown outcome: writes are blocked until Acknowledge, reads still run', async ({ consolePage, page, capstan, folder }) => {
  await whitelist(capstan, ['exit', 'read_text_file']);
  await page.reload();
  await providerState(capstan, 'files', 'ready');

  // fixture:exit is not read-only and not destructive: mutating, no confirmation. Its process exits mid-call.
  const exit = await findTool(consolePage, 'exit');
  await exit.getByRole('button', { name: 'Execute' }).click();
  const died = consolePage.latestExecution;
  await expect(died).toContainText('OUTCOME_UNKNOWN', { timeout: 20_000 });
  const requestId = await consolePage.requestIdOf(died);

  const tasks = await consolePage.openTasks();
  const blocked = tasks.getByRole('region', { name: /Mutating calls are blocked until you acknowledge this unknown outcome/ });
  await expect(blocked).toBeVisible();
  await expect(blocked).toContainText('fixture:exit');
  await expect(blocked).toContainText(requestId);
  await expect(consolePage.dockTab('Tasks').locator('.count-badge--warn')).toHaveText('1');

  // The next write is refused before it reaches the server; the file is untouched.
  const refused = await writeThroughReview(consolePage, join(folder, 'notes.txt'), 'blocked write');
  await expect(refused).toContainText('MUTATION_BLOCKED');
  expect(await readFile(join(folder, 'notes.txt'), 'utf8')).toBe('first line\n');

  // Reads still run meanwhile.
  const read = await findTool(consolePage, 'read_text_file');
  await read.getByLabel('path').fill(join(folder, 'notes.txt'));
  await read.getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');

  await blocked.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(blocked).toBeHidden();
  await expect(consolePage.dockTab('Tasks').locator('.count-badge--warn')).toHaveCount(0);
  const written = await writeThroughReview(consolePage, join(folder, 'notes.txt'), 'after the acknowledgement');
  await expect(written).toContainText('ok');
  expect(await readFile(join(folder, 'notes.txt'), 'utf8')).toBe('after the acknowledgement');
});

test("an isError answer fails with TOOL_ERROR and shows the server's content as the failure", async ({ consolePage, page, capstan }) => {
  await whitelist(capstan, ['fail']);
  await page.reload();
  await (await findTool(consolePage, 'fail')).getByRole('button', { name: 'Execute' }).click();
  const entry = consolePage.latestExecution;
  await expect(entry).toContainText('TOOL_ERROR');
  await expect(entry.getByRole('region', { name: 'fixture:fail error content' })).toHaveText('the fixture failed on purpose');
});

test('tools of a server that cannot connect stay listed as unavailable, Execute says why, and calls get PROVIDER_UNAVAILABLE', async ({ consolePage, page, capstan }) => {
  await whitelist(capstan, ['slow']);
  await page.reload();
  await providerState(capstan, 'fixture', 'ready');
  const before = await findTool(consolePage, 'slow');
  await expect(before).toHaveAttribute('data-state', 'executable');

  // Another client points the server at a command that fails at once.
  const broken = { command: process.execPath, args: ['-e', "console.error('fixture: cannot reach the backend'); process.exit(1)"] };
  expect((await send(capstan, 'PUT', '/mcp-servers/fixture', { name: 'fixture', entry: broken })).status).toBe(200);

  const card = consolePage.tool('slow');
  await expect(card).toHaveAttribute('data-state', 'unavailable');
  await expect(card).toContainText(/Server fixture (failed|is connecting)/);
  const detail = consolePage.detail('slow');
  await expect(detail).toHaveAttribute('data-state', 'unavailable');
  const execute = detail.getByRole('button', { name: 'Execute' });
  await expect(execute).toBeDisabled();
  await expect(execute).toHaveAccessibleDescription(/Server fixture (failed|is connecting).*PROVIDER_UNAVAILABLE/);
  await expect(consolePage.count('unavailable')).not.toHaveText('0');

  const call = await send(capstan, 'POST', '/tools/call', { tool: 'fixture:slow', arguments: { steps: 1, everyMs: 1 } });
  expect(call.status).toBe(503);
  expect(call.body.error?.code).toBe('PROVIDER_UNAVAILABLE');
});
