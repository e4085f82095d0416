/**
 * server-everything (the MCP reference server) as a provider, a real child process over stdio:
 * its tools appear with the annotations it declared beside what Capstan decided; echo runs; its
 * results keep their content blocks (text, an image, resource links, structuredContent); and a
 * long-running operation streams its progress into the console live and stops on cancel; a tool
 * its server runs only as an MCP task runs as one, its task status shown while it runs.
 */
import type { Locator } from '@playwright/test';
import type { CatalogView } from '../../shared/discovery';
import type { ConsolePage } from './consolePage';
import { expect, test } from './fixtures';
import { BUILTIN } from '../support/builtins';
import { gatewayApi } from './gatewayApi';
import { everythingStdio, mcpConfig, whitelist } from './mcpServers';

test.use({ serveConfig: mcpConfig({ everything: everythingStdio() }) });
// Each test starts the gateway and its server; a busy machine needs more than the default 30 s.
test.describe.configure({ timeout: 90_000 });

/** The tools' cards appear once the server has connected and listed them. */
const CONNECT_TIMEOUT = { timeout: 30_000 };

/** The list is virtualized: a tool far down is found by searching for it, as an operator would. */
async function findTool(consolePage: ConsolePage, name: string): Promise<Locator> {
  await consolePage.filterInput.fill(name);
  await expect(consolePage.tool(name)).toBeVisible(CONNECT_TIMEOUT);
  return consolePage.select(name);
}

async function expectPolicy(policy: Locator, declared: Record<string, string>, decided: { risk: string; confirm: string; mutating: string }) {
  for (const [hint, value] of Object.entries(declared)) await expect(policy.getByTestId(`declared-${hint}`)).toHaveText(value);
  await expect(policy.getByTestId('decided-risk')).toHaveText(decided.risk);
  await expect(policy.getByTestId('decided-confirm')).toHaveText(decided.confirm);
  await expect(policy.getByTestId('decided-mutating')).toHaveText(decided.mutating);
}

test("every tool server-everything lists appears, with what it declared and what Capstan decided", async ({ consolePage, page, capstan }) => {
  await expect(consolePage.tool('echo')).toBeVisible(CONNECT_TIMEOUT);
  const catalog = await gatewayApi<CatalogView>(capstan, 'GET', '/catalog');
  const tools = catalog.capabilities.filter((entry) => entry.contract.provider === 'everything');
  expect(tools.map((entry) => entry.contract.name)).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image', 'trigger-long-running-operation', 'toggle-simulated-logging']));
  await expect(page.getByRole('combobox', { name: 'Provider' }).getByRole('option', { name: `everything (${tools.length})` })).toHaveCount(1);
  // The Tools figure counts tools only; its resources and prompts have figures of their own.
  await expect(consolePage.count('total')).toHaveText(String(BUILTIN.total + tools.filter((entry) => entry.contract.kind === 'tool').length));
  await expect(consolePage.count('prompts')).toHaveText(String(tools.filter((entry) => entry.contract.kind === 'prompt').length));

  // echo: read-only, so low risk, no confirmation, not mutating; not whitelisted, so read-only in this console.
  const echo = await consolePage.select('echo');
  await expect(echo).toHaveAttribute('data-state', 'read-only');
  await expect(echo.getByText('everything:echo')).toBeVisible();
  const echoPolicy = echo.getByRole('region', { name: 'Policy: declared and decided' });
  await expectPolicy(echoPolicy, { readOnlyHint: 'true', destructiveHint: 'false', idempotentHint: 'true', openWorldHint: 'false' }, { risk: 'low', confirm: 'no', mutating: 'no' });
  await expect(echoPolicy.getByTestId('tightened-by')).toHaveText('No config.json pattern tightened this.');

  // toggle-simulated-logging: not read-only, not destructive: mutating, yet no confirmation.
  const toggle = await findTool(consolePage, 'toggle-simulated-logging');
  await expectPolicy(toggle.getByRole('region', { name: 'Policy: declared and decided' }), { readOnlyHint: 'false', destructiveHint: 'false' }, { risk: 'low', confirm: 'no', mutating: 'yes' });
  await expect(consolePage.tool('toggle-simulated-logging')).toContainText('Writes data');

  // The output schema is shown where the server declares one, in the detail and in Inspect.
  const structured = await findTool(consolePage, 'get-structured-content');
  await structured.getByText('Output schema', { exact: true }).click();
  await expect(structured.getByLabel('get-structured-content output schema')).toContainText('"temperature"');
  await structured.getByRole('button', { name: 'Inspect', exact: true }).click();
  const drawer = page.getByRole('dialog', { name: 'Inspect get-structured-content' });
  await expect(drawer.getByLabel('get-structured-content output schema')).toContainText('"humidity"');
  await expect(drawer.getByRole('region', { name: 'Policy: declared and decided' }).getByTestId('declared-readOnlyHint')).toHaveText('true');
});

test('a tool its server runs only as an MCP task runs from the console as one, its task status shown while the call runs', async ({ consolePage, page, capstan }) => {
  await whitelist(capstan, ['simulate-research-query']);
  await page.reload();
  const detail = await findTool(consolePage, 'simulate-research-query');
  await expect(detail).not.toHaveAttribute('data-state', 'not-runnable');
  await expect(consolePage.count('not-runnable')).toHaveCount(0);
  await detail.getByLabel('topic').fill('tides');
  await detail.getByRole('button', { name: 'Execute' }).click();
  const entry = consolePage.latestExecution;
  // The task's status is the running call's progress message, as the server moves through its stages.
  await expect(entry).toContainText(/MCP task working: \w+/, { timeout: 15_000 });
  await expect(entry).toContainText('ok', { timeout: 20_000 });
  await expect(entry.getByRole('region', { name: 'everything:simulate-research-query content' })).toContainText(/tides/i);
});

test('echo runs from the console, and results keep their text, image, resource link and structured content blocks', async ({ consolePage, page, capstan }) => {
  await whitelist(capstan, ['echo', 'get-tiny-image', 'get-resource-links', 'get-structured-content']);
  await page.reload();
  await expect(consolePage.tool('echo')).toBeVisible(CONNECT_TIMEOUT);

  const echo = await consolePage.select('echo');
  await echo.getByLabel('message').fill('hello from the console');
  await echo.getByRole('button', { name: 'Execute' }).click();
  let entry = consolePage.latestExecution;
  await expect(entry).toContainText('ok');
  await expect(entry.getByRole('region', { name: 'everything:echo content' })).toContainText('Echo: hello from the console');
  expect(await consolePage.responseOf(entry)).toMatchObject({ ok: true, result: { content: [{ type: 'text', text: 'Echo: hello from the console' }] } });

  // An image block is drawn as an image from a data: URL, which the CSP allows (the fixture fails on any violation).
  await (await findTool(consolePage, 'get-tiny-image')).getByRole('button', { name: 'Execute' }).click();
  entry = consolePage.latestExecution;
  const image = entry.getByRole('img', { name: 'Image returned by everything:get-tiny-image' });
  await expect(image).toBeVisible();
  await expect(image).toHaveAttribute('src', /^data:image\/png;base64,/);
  expect(await image.evaluate((element) => (element as unknown as { naturalWidth: number }).naturalWidth)).toBe(20);
  await expect(entry.locator('[data-block="text"]')).toHaveText(["Here's the image you requested:", 'The image above is the MCP logo.']);

  const links = await findTool(consolePage, 'get-resource-links');
  await links.getByLabel('count').fill('2');
  await links.getByRole('button', { name: 'Execute' }).click();
  entry = consolePage.latestExecution;
  const linkBlocks = entry.locator('[data-block="resource-link"]');
  await expect(linkBlocks).toHaveCount(2);
  await expect(linkBlocks.first()).toContainText('Blob Resource 1');
  await expect(linkBlocks.first()).toContainText('demo://resource/dynamic/blob/1');

  const weather = await findTool(consolePage, 'get-structured-content');
  await weather.getByLabel('location').selectOption('Chicago');
  await weather.getByRole('button', { name: 'Execute' }).click();
  const structured = consolePage.latestExecution.getByTestId('structured-content');
  await expect(structured).toBeVisible();
  expect(JSON.parse((await structured.textContent()) ?? '')).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
});

test('a long-running operation shows its progress live, in Recent executions and the task, and Cancel call stops it alone', async ({ consolePage, page, capstan }) => {
  await whitelist(capstan, ['trigger-long-running-operation']);
  await page.reload();
  const detail = await findTool(consolePage, 'trigger-long-running-operation');
  await detail.getByLabel('duration').fill('60');
  await detail.getByLabel('steps').fill('60');
  await detail.getByRole('button', { name: 'Execute' }).click();

  const entry = consolePage.latestExecution;
  const steps = entry.getByTestId('progress-steps');
  await expect(steps).toHaveText(/^\d+ of 60$/, { timeout: 10_000 });
  const first = Number((await steps.textContent())?.split(' ')[0]);
  // Live: the next report arrives without anything being asked.
  await expect(steps).not.toHaveText(`${first} of 60`, { timeout: 5_000 });
  await expect(entry.getByRole('progressbar', { name: 'Progress of everything:trigger-long-running-operation' })).toBeVisible();
  await expect(entry.getByTestId('progress-clock')).toContainText(/^\d+ s elapsed · deadline in (\d+ min )?\d+ s \((\d+ min )?\d+ s allowed\)$/);

  const tasks = await consolePage.openTasks();
  await expect(tasks.getByRole('list', { name: 'Running calls' }).getByTestId('progress-steps')).toHaveText(/^\d+ of 60$/);

  await entry.getByRole('button', { name: /^Cancel call/ }).click();
  await expect(entry).toContainText('CALL_CANCELLED', { timeout: 15_000 });
  await expect(entry.getByTestId('call-progress')).toHaveCount(0);
  await expect(tasks.getByRole('list', { name: 'Running calls' })).toHaveCount(0);
  // The call alone: its task runs on.
  await expect(consolePage.activeTask().locator('[data-call-count="cancelled"]')).toHaveText('1');
  await expect(consolePage.activeTask().locator('[data-task-state]').first()).toHaveAttribute('data-task-state', 'running');
});
