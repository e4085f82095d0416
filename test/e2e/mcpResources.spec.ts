/**
 * server-everything's resources, templates and prompts in the console, through the real gateway:
 * a resource read and shown by its MIME type, a template filled in with the server's completions,
 * a followed resource's updates arriving live, a prompt got with arguments and its messages shown;
 * and axe-core finds nothing in those views, in the light theme or the dark one.
 */
import type { Page } from '@playwright/test';
import axe, { type AxeResults, type RunOptions } from 'axe-core';
import type { CatalogView } from '../../shared/discovery';
import type { ConsolePage } from './consolePage';
import { expect, test } from './fixtures';
import { gatewayApi } from './gatewayApi';
import { everythingStdio, mcpConfig } from './mcpServers';

test.use({ serveConfig: mcpConfig({ everything: everythingStdio() }) });
test.describe.configure({ timeout: 90_000 });

const ARCHITECTURE = 'demo://resource/static/document/architecture.md';
const CONNECT_TIMEOUT = { timeout: 30_000 };
/** A round trip through the gateway to the server and back (a completion, a read), on a machine others share. */
const SERVER_ROUND_TRIP = { timeout: 15_000 };

/** The catalog's name for a capability of server-everything, found as the console's list has it. */
async function nameOf(capstan: Parameters<typeof gatewayApi>[0], match: (contract: CatalogView['capabilities'][number]['contract']) => boolean): Promise<string> {
  await expect.poll(async () => (await gatewayApi<CatalogView>(capstan, 'GET', '/catalog')).capabilities.some(({ contract }) => match(contract)), CONNECT_TIMEOUT).toBe(true);
  return (await gatewayApi<CatalogView>(capstan, 'GET', '/catalog')).capabilities.find(({ contract }) => match(contract))!.contract.name;
}

/** The list is virtualized: a capability is found by searching for it, as an operator would. */
async function open(consolePage: ConsolePage, name: string, query: string) {
  await consolePage.filterInput.fill(query);
  await expect(consolePage.tool(name)).toBeVisible(CONNECT_TIMEOUT);
  return consolePage.select(name);
}

async function violations(page: Page, view: string, scope = '.detail-pane'): Promise<string[]> {
  const found: string[] = [];
  if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) await page.evaluate(axe.source);
  for (const theme of ['light', 'dark'] as const) {
    const options: RunOptions = { resultTypes: ['violations'], ...(theme === 'dark' ? { runOnly: { type: 'rule', values: ['color-contrast', 'link-in-text-block'] } } : {}) };
    const result = await page.evaluate<AxeResults>(`document.documentElement.dataset.theme = '${theme}'; axe.run(${JSON.stringify(scope)}, ${JSON.stringify(options)})`);
    for (const violation of result.violations) for (const node of violation.nodes) found.push(`${theme}, ${view}: ${violation.id} at ${node.target.join(' ')}: ${node.failureSummary ?? ''}`);
  }
  return found;
}

test('reads a resource, shows it as its MIME type says, follows its updates, and records the read', async ({ consolePage, page, capstan }) => {
  const name = await nameOf(capstan, (contract) => contract.kind === 'resource' && contract.uri === ARCHITECTURE);
  // The kind filter offers resources once the server has some.
  await expect(page.getByRole('group', { name: 'Filter by kind' }).getByRole('button', { name: /^Resources \d+/ })).toBeVisible(CONNECT_TIMEOUT);
  // The whole page with resources, templates and prompts listed: their kind filters and header figures.
  await expect(consolePage.count('prompts')).toHaveText('4');
  const found = await violations(page, 'registry with resources and prompts', 'body');
  const detail = await open(consolePage, name, 'architecture');
  await expect(detail).toHaveAttribute('data-state', 'readable');
  await expect(detail.getByText(ARCHITECTURE, { exact: true })).toBeVisible();
  found.push(...(await violations(page, 'resource detail')));

  await detail.getByRole('button', { name: 'Read', exact: true }).click();
  const contents = detail.getByRole('region', { name: 'Contents' });
  await expect(contents.getByLabel(`Contents of ${ARCHITECTURE}`)).toContainText('#');
  await expect(contents.getByText('text/markdown · text')).toBeVisible();
  const requestId = await contents.getAttribute('data-request-id');
  const ledger = await gatewayApi<{ entries: { kind: string; details: Record<string, unknown> }[] }>(capstan, 'GET', `/ledger?requestId=${requestId}`);
  expect(ledger.entries.map((entry) => entry.kind)).toEqual(['call_started', 'call_finished']);
  expect(ledger.entries[1]!.details).toMatchObject({ status: 'ok', resultDigest: expect.any(String) });
  found.push(...(await violations(page, 'resource detail with its contents')));

  // Followed: the server announces updates once its simulation runs (a tool of its own).
  await detail.getByRole('button', { name: 'Follow updates' }).click();
  await expect(detail.getByRole('button', { name: 'Stop following' })).toBeVisible();
  await gatewayApi(capstan, 'POST', '/tools/call', { tool: 'everything:toggle-subscriber-updates' });
  await expect(detail.getByRole('status').filter({ hasText: /^Updated (once|\d+ times), last at/ })).toBeVisible({ timeout: 15_000 });
  found.push(...(await violations(page, 'resource detail following updates')));
  await detail.getByRole('button', { name: 'Read the new version' }).click();
  await expect(contents).not.toHaveAttribute('data-request-id', requestId!);

  // Inspect shows the whole contract, the URI and MIME type among it.
  await detail.getByRole('button', { name: 'Inspect', exact: true }).click();
  const drawer = page.getByRole('dialog', { name: `Inspect ${name}` });
  await expect(drawer).toContainText(ARCHITECTURE);
  found.push(...(await violations(page, 'inspect drawer of a resource', 'dialog[open]')));
  await page.keyboard.press('Escape');
  expect(found).toEqual([]);
});

test('fills a template with the server completing its variable, and shows a binary part as a download', async ({ consolePage, page, capstan }) => {
  const name = await nameOf(capstan, (contract) => contract.kind === 'resourceTemplate' && contract.uriTemplate === 'demo://resource/dynamic/text/{resourceId}');
  const detail = await open(consolePage, name, 'Dynamic Text Resource');
  const read = detail.getByRole('button', { name: 'Read', exact: true });
  await expect(read).toBeDisabled();
  const variable = detail.getByLabel('resourceId');
  await variable.fill('12');
  // The server's completion for the value typed (server-everything echoes a valid id).
  await expect(detail.getByTestId('suggestions-resourceId').locator('option')).toHaveAttribute('value', '12', SERVER_ROUND_TRIP);
  await read.click();
  await expect(detail.getByLabel('Contents of demo://resource/dynamic/text/12')).toContainText('Resource 12: This is a plaintext resource', SERVER_ROUND_TRIP);
  const found = await violations(page, 'template detail with its contents');

  const blobName = await nameOf(capstan, (contract) => contract.kind === 'resourceTemplate' && contract.uriTemplate === 'demo://resource/dynamic/blob/{resourceId}');
  const blob = await open(consolePage, blobName, 'Dynamic Blob Resource');
  await blob.getByLabel('resourceId').fill('3');
  await blob.getByRole('button', { name: 'Read', exact: true }).click();
  // A blob is bytes whatever its MIME type says: offered as a download, not shown.
  await expect(blob.getByText(/^Binary content \(\d+ bytes\)/)).toBeVisible(SERVER_ROUND_TRIP);
  const download = page.waitForEvent('download');
  await blob.getByRole('link', { name: 'Download' }).click();
  // Named after the URI's last segment (the browser may add the MIME type's extension).
  expect((await download).suggestedFilename()).toMatch(/^3(\.txt)?$/);
  found.push(...(await violations(page, 'template detail with a binary part')));
  expect(found).toEqual([]);
});

test('gets a prompt with arguments, completed by the server, and shows its messages', async ({ consolePage, page }) => {
  const detail = await open(consolePage, 'prompt.completable-prompt', 'completable');
  await expect(detail).toHaveAttribute('data-state', 'prompt');
  const get = detail.getByRole('button', { name: 'Get prompt' });
  await expect(get).toBeDisabled();
  await detail.getByLabel('department').fill('Sa');
  await expect(detail.getByTestId('suggestions-department').locator('option')).toHaveAttribute('value', 'Sales', SERVER_ROUND_TRIP);
  await detail.getByLabel('department').fill('Sales');
  await detail.getByLabel('name').focus();
  // The second argument's suggestions depend on the first (context.arguments).
  await expect(detail.getByTestId('suggestions-name').locator('option')).toHaveCount(3, SERVER_ROUND_TRIP);
  await detail.getByLabel('name').fill('Eve');
  const found = await violations(page, 'prompt detail filled in');
  await get.click();
  const messages = detail.getByRole('region', { name: 'Messages' });
  await expect(messages.getByRole('listitem')).toHaveCount(1);
  await expect(messages.getByRole('listitem')).toContainText('user');
  await expect(messages.getByLabel('Message 1 (user)')).toHaveText('Please promote Eve to the head of the Sales team.');
  found.push(...(await violations(page, 'prompt detail with its messages')));

  // A prompt whose message embeds a resource: shown in the resource viewer.
  const embedded = await open(consolePage, 'prompt.resource-prompt', 'resource-prompt');
  await embedded.getByLabel('resourceType').fill('Text');
  await embedded.getByLabel('resourceId').fill('2');
  await embedded.getByRole('button', { name: 'Get prompt' }).click();
  await expect(embedded.getByRole('region', { name: 'Messages' }).getByRole('listitem')).toHaveCount(2);
  await expect(embedded.getByLabel('Message 2 (user)')).toContainText('Resource 2: This is a plaintext resource');
  found.push(...(await violations(page, 'prompt detail with an embedded resource')));
  expect(found).toEqual([]);
});

test('the Providers panel counts a server’s resources and prompts beside its tools, as the catalog holds them', async ({ consolePage, page, capstan }) => {
  void consolePage;
  await nameOf(capstan, (contract) => contract.kind === 'prompt');
  const { capabilities } = await gatewayApi<CatalogView>(capstan, 'GET', '/catalog');
  const ofKinds = (...kinds: string[]) => capabilities.filter(({ contract }) => contract.provider === 'everything' && kinds.includes(contract.kind)).length;
  await page.getByRole('button', { name: /^Providers/ }).click();
  const row = page.getByRole('dialog', { name: 'Providers' }).getByRole('listitem', { name: 'everything' });
  await expect(row.getByTestId('resources')).toHaveText(String(ofKinds('resource', 'resourceTemplate')));
  await expect(row.getByTestId('prompts')).toHaveText(String(ofKinds('prompt')));
  expect(ofKinds('prompt')).toBeGreaterThan(0);
  // A provider with none (the builtins) shows no such figures.
  await expect(page.getByRole('dialog', { name: 'Providers' }).getByRole('listitem', { name: 'builtin' }).getByTestId('resources')).toHaveCount(0);
});
