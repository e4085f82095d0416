/**
 * What server-everything says and asks, in the console: an elicitation answered in the dialog
 * while the operator's call waits, a log line arriving live in the server's Log, and a call
 * followed from Recent executions into the server's protocol messages and on to its ledger
 * entries; each new state checked with axe-core, light and dark.
 */
import type { CapstanServer } from './capstanServer';
import type { ConsolePage } from './consolePage';
import { expect, test } from './fixtures';
import { axeViolations } from './axe';
import { everythingStdio, mcpConfig, send, whitelist } from './mcpServers';
import { connectHttp } from '../support/mcpClient';

test.use({ serveConfig: mcpConfig({ everything: everythingStdio() }) });
test.describe.configure({ timeout: 90_000 });
const CONNECT_TIMEOUT = { timeout: 30_000 };

/** Lets the operator run one of the server's tools with one click, finds it once the server has listed it, and opens it. */
async function openTool(consolePage: ConsolePage, capstan: CapstanServer, name: string) {
  await whitelist(capstan, [name]);
  await consolePage.page.reload();
  await consolePage.filterInput.fill(name);
  await expect(consolePage.tool(name)).toBeVisible(CONNECT_TIMEOUT);
  return consolePage.select(name);
}

test('an elicitation during the operator\'s call is answered in a dialog while the call waits, its defaults filled in', async ({ consolePage, page, capstan }) => {
  const detail = await openTool(consolePage, capstan, 'trigger-elicitation-request');
  await detail.getByRole('button', { name: 'Execute' }).click();

  const dialog = page.getByRole('dialog', { name: 'everything asks while your call waits' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Please provide inputs for the following fields');
  // The schema's defaults are in the form already (SEP-1034); titled choices show their titles (SEP-1330).
  await expect(dialog.getByLabel('Integer', { exact: true })).toHaveValue('42');
  await expect(dialog.getByLabel('Titled Single Select Enum', { exact: true })).toHaveValue('hero-1');
  await expect(dialog.getByRole('combobox', { name: 'Titled Single Select Enum', exact: true }).getByRole('option', { name: 'Wonder Woman' })).toHaveCount(1);
  await expect(dialog.getByRole('group', { name: 'Untitled Multiple Select Enum' }).getByRole('checkbox', { name: 'Guitar' })).toBeChecked();
  expect(await axeViolations(page, 'elicitation dialog', 'dialog[open]')).toEqual([]);

  // The required field is asked for before anything is sent.
  await dialog.getByRole('button', { name: 'Accept and send' }).click();
  await expect(dialog.getByLabel(/^String \(required\)/)).toHaveAttribute('aria-invalid', 'true');
  await dialog.getByLabel(/^String \(required\)/).fill('Ada Lovelace');
  await dialog.getByRole('button', { name: 'Accept and send' }).click();
  await expect(dialog).toBeHidden();

  const entry = consolePage.latestExecution;
  await expect(entry).toContainText('- Name: Ada Lovelace', { timeout: 15_000 });
  await expect(entry).toContainText('- Favorite Integer: 42');
});

test('a sampling request during the operator\'s call is answered by hand in the dialog; no model is called', async ({ consolePage, page, capstan }) => {
  const detail = await openTool(consolePage, capstan, 'trigger-sampling-request');
  await detail.getByLabel('prompt').fill('a line about tides');
  await detail.getByRole('button', { name: 'Execute' }).click();

  const dialog = page.getByRole('dialog', { name: 'everything asks while your call waits' });
  await expect(dialog.getByRole('heading', { name: 'everything asks for a model reply' })).toBeVisible();
  await expect(dialog).toContainText('You are a helpful test server.');
  await expect(dialog).toContainText('a line about tides');
  await expect(dialog.getByRole('button', { name: 'Send reply' })).toBeDisabled();
  expect(await axeViolations(page, 'sampling dialog', 'dialog[open]')).toEqual([]);
  await dialog.getByLabel('Your reply').fill('The tide comes in, the tide goes out.');
  await dialog.getByRole('button', { name: 'Send reply' }).click();
  await expect(dialog).toBeHidden();
  await expect(consolePage.latestExecution).toContainText('The tide comes in, the tide goes out.', { timeout: 15_000 });
  await expect(consolePage.latestExecution).toContainText('capstan-operator');
});

test("a question during an agent's call waits in Approvals, counted in the header, where the operator answers it", async ({ consolePage, page, capstan }) => {
  await expect(consolePage.tool('echo')).toBeVisible(CONNECT_TIMEOUT);
  const token = (await send(capstan, 'POST', '/agents', { name: 'asker' })).body.token as string;
  const mcp = await connectHttp(capstan.origin, token);
  try {
    const found = await mcp.call('capabilities_search', { query: 'trigger elicitation request' });
    const item = (found.structuredContent!.items as { reference: { id: string } }[]).find((candidate) => candidate.reference.id === 'everything:trigger-elicitation-request')!;
    await mcp.call('tools_load', { reference: item.reference });
    const call = mcp.call('capability_call', { reference: item.reference, arguments: {} });

    const indicator = page.getByTestId('approvals-indicator');
    await expect(indicator).toContainText('1');
    await indicator.click();
    const question = page.getByRole('article', { name: 'everything asks' });
    await expect(question).toContainText('agent:asker');
    await expect(question).toContainText('everything:trigger-elicitation-request');
    // Not the dialog: that is for the operator's own calls.
    await expect(page.getByRole('dialog', { name: /asks while your call waits/ })).toHaveCount(0);
    expect(await axeViolations(page, 'a question in Approvals', '.dock')).toEqual([]);
    await question.getByLabel(/^String \(required\)/).fill('Grace Hopper');
    await question.getByRole('button', { name: 'Accept and send' }).click();
    await expect(question).toBeHidden();
    expect(JSON.stringify((await call).content)).toContain('Grace Hopper');
  } finally {
    await mcp.close();
  }
});

test('roots are set in the server form and reach the running server without a restart', async ({ consolePage, page, capstan }) => {
  await expect(consolePage.tool('echo')).toBeVisible(CONNECT_TIMEOUT);
  await page.getByRole('button', { name: /^Providers/ }).click();
  const row = page.getByRole('dialog', { name: 'Providers' }).getByRole('listitem', { name: 'everything' });
  await row.getByRole('button', { name: 'Edit…' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit everything' });
  await edit.getByRole('button', { name: 'Add root' }).click();
  await edit.getByRole('textbox', { name: 'Root 1' }).fill('relative/folder');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit.getByRole('textbox', { name: 'Root 1' })).toHaveAttribute('aria-invalid', 'true');
  expect(await axeViolations(page, 'server form with a root', 'dialog[open]')).toEqual([]);
  const root = '/srv/capstan-e2e-root';
  await edit.getByRole('textbox', { name: 'Root 1' }).fill(root);
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit).toBeHidden();
  await expect.poll(async () => ((await send(capstan, 'GET', '/mcp-servers')).body.servers as { name: string; entry: { roots?: string[] } }[]).find((server) => server.name === 'everything')?.entry.roots).toEqual([root]);
  // The server was told (notifications/roots/list_changed), not restarted: it lists the new root.
  const listed = await send(capstan, 'POST', '/tools/call', { tool: 'everything:get-roots-list' });
  expect(JSON.stringify(listed.body)).toContain(`file://${root}`);
  const messages = (await send(capstan, 'GET', '/mcp-servers/everything/protocol?q=roots')).body.messages as { method: string }[];
  expect(messages.map((message) => message.method)).toContain('notifications/roots/list_changed');
});

test('a server log line arrives live in its Log, filtered by level', async ({ consolePage, page, capstan }) => {
  await expect(consolePage.tool('echo')).toBeVisible(CONNECT_TIMEOUT);
  await page.getByRole('button', { name: /^Providers/ }).click();
  const panel = page.getByRole('dialog', { name: 'Providers' });
  const row = panel.getByRole('listitem', { name: 'everything' });
  await expect(row.getByText('Ready', { exact: true })).toBeVisible(CONNECT_TIMEOUT);
  await row.getByRole('button', { name: 'Log…' }).click();
  const logPanel = page.getByRole('dialog', { name: 'Log of everything' });
  await logPanel.getByTestId('log-level').selectOption('debug');
  await expect.poll(async () => (await send(capstan, 'GET', '/mcp-servers/everything/log')).body.level).toBe('debug');

  // The server starts logging (a line at once, then one every 5 s): the line appears without a reload.
  await send(capstan, 'POST', '/tools/call', { tool: 'everything:toggle-simulated-logging' });
  const log = logPanel.getByRole('log', { name: 'Log lines of everything' });
  // Lines from before are kept too (the server noted the roots it got as it started); the simulated ones follow.
  await expect(log.getByRole('listitem').filter({ hasText: /level.message/i }).first()).toBeVisible({ timeout: 15_000 });
  expect(await axeViolations(page, 'server log', 'dialog[open]')).toEqual([]);
  // Only emergencies: every line shown is one.
  await logPanel.getByTestId('log-filter').selectOption('emergency');
  for (const level of await log.locator('.server-log__level').allTextContents()) expect(level).toBe('emergency');
  await send(capstan, 'POST', '/tools/call', { tool: 'everything:toggle-simulated-logging' });
});

test("a call is followed from Recent executions into the server's protocol messages, and on to its ledger entries", async ({ consolePage, page, capstan }) => {
  await whitelist(capstan, ['echo']);
  await page.reload();
  await expect(consolePage.tool('echo')).toBeVisible(CONNECT_TIMEOUT);
  const echo = await consolePage.select('echo');
  await echo.getByLabel('message').fill('over the wire');
  await echo.getByRole('button', { name: 'Execute' }).click();
  const entry = consolePage.latestExecution;
  await expect(entry).toContainText('Echo: over the wire');
  const requestId = await consolePage.requestIdOf(entry);

  await entry.getByRole('button', { name: 'Protocol messages' }).click();
  const panel = page.getByRole('dialog', { name: 'Protocol messages of everything' });
  await expect(panel.getByTestId('protocol-call')).toContainText(requestId);
  const messages = panel.getByRole('list', { name: 'Protocol messages of everything' }).getByRole('listitem');
  await expect(messages).toHaveCount(2);
  await expect(messages.nth(0)).toContainText('response');
  await expect(messages.nth(1)).toContainText('request');
  await expect(messages.nth(1)).toContainText('tools/call');
  await messages.nth(1).locator('summary').click();
  await expect(messages.nth(1).getByLabel(/as JSON$/)).toContainText(`"requestId": "${requestId}"`);
  expect(await axeViolations(page, 'protocol view', 'dialog[open]')).toEqual([]);

  // Searching every message of the server finds the call by its words.
  await panel.getByRole('button', { name: 'Show every message' }).click();
  await panel.getByTestId('protocol-search').fill('over the wire');
  await expect(messages.first()).toContainText(requestId);

  await panel.getByRole('button', { name: 'Ledger entries' }).first().click();
  await expect(consolePage.ledgerRows({ requestId }).first()).toBeVisible();

  // And back: the call's ledger entry leads to its messages.
  await consolePage.ledgerRows({ requestId, kind: 'call_finished' }).click();
  const drawer = page.getByRole('dialog', { name: /^Ledger entry #/ });
  await drawer.getByRole('button', { name: 'Protocol messages' }).click();
  await expect(page.getByRole('dialog', { name: 'Protocol messages of everything' }).getByTestId('protocol-call')).toContainText(requestId);
});
