/** Running tools from the console and reading the result, with its requestId, on the same page. */
import { fileURLToPath } from 'node:url';
import { expect, test } from './fixtures';

const SCREENSHOT = fileURLToPath(new URL('../../build/screenshot-console.png', import.meta.url));

test('executing time_now shows its requestId and JSON result in Recent executions', async ({ consolePage }) => {
  const detail = await consolePage.select('time_now');
  await expect(consolePage.executionEntries).toHaveCount(0);

  await detail.getByRole('button', { name: 'Execute' }).click();

  const entry = consolePage.latestExecution;
  await expect(entry).toContainText('ok');
  await expect(entry).toContainText('time_now');
  await expect(entry).toContainText(/\d+(\.\d)? ms/);
  const requestId = await consolePage.requestIdOf(entry);
  expect(requestId).toMatch(/^tool-registry-[0-9a-f-]{36}$/);

  await expect(entry.getByText('"timezone"')).toBeVisible();
  const response = (await consolePage.responseOf(entry)) as { requestId: string; ok: boolean; result: Record<string, unknown> };
  expect(response.requestId).toBe(requestId);
  expect(response.ok).toBe(true);
  expect(response.result).toHaveProperty('timezone');
  expect(response.result).toHaveProperty('utcOffset');
  // Its trace id beside the requestId, as the answer and the call's ledger entry carry it.
  await expect(entry.getByTestId('trace-id')).toHaveText(/^[0-9a-f]{32}$/);
  expect(await entry.getByTestId('trace-id').textContent()).toBe((response as { traceId?: string }).traceId);
});

test('after Execute at 1440×900 the result is brought into view, focused and announced', async ({ consolePage, page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  // One run first: the pane grows, and the next run's entry starts below the fold.
  const detail = await consolePage.select('time_now');
  const execute = detail.getByRole('button', { name: 'Execute' });
  await execute.click();
  await expect(consolePage.executionEntries).toHaveCount(1);
  // Back to the top of the pane, as an operator filling in the form would be.
  await detail.getByRole('heading', { name: 'time_now' }).scrollIntoViewIfNeeded();
  await expect(execute).toBeInViewport();

  await execute.click();
  await expect(consolePage.executionEntries).toHaveCount(2);
  const entry = consolePage.latestExecution;
  await expect(entry).toContainText('ok');
  await expect(entry).toBeFocused();
  await expect(entry).toBeInViewport();
  await expect(entry.getByTestId('request-id')).toBeInViewport();
  await expect(page.getByTestId('run-announcement')).toHaveText(/Running time_now: .* Recent executions/);
});

test('after Confirm and run at 1440×900 the run is brought into view and focused, not the button that opened the review', async ({ consolePage, page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const detail = await consolePage.select('http_check');
  // Refused by the destination policy (loopback is not allowed here): an answer all the same, with nothing sent.
  await detail.getByLabel('url').fill('http://127.0.0.1:9/health');
  await detail.getByRole('button', { name: 'Review and run' }).click();
  const dialog = consolePage.reviewDialog();
  await dialog.getByRole('button', { name: 'Confirm and run' }).click();
  await expect(dialog).toBeHidden();

  const entry = consolePage.latestExecution;
  await expect(entry).toContainText('http_check');
  await expect(entry).toBeFocused();
  await expect(entry).toBeInViewport();
});

test('Copy puts the full JSON of an execution on the clipboard', async ({ consolePage, page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await (await consolePage.select('time_now')).getByRole('button', { name: 'Execute' }).click();
  const entry = consolePage.latestExecution;
  await entry.getByRole('button', { name: 'Copy JSON' }).click();
  await expect(entry.getByRole('button', { name: 'Copied' })).toBeVisible();
  const copied = await page.evaluate<string>('navigator.clipboard.readText()');
  expect(JSON.parse(copied)).toEqual(await consolePage.responseOf(entry));

  // The JSON is collapsible.
  await entry.getByText('Result JSON').click();
  await expect(entry.locator('pre.json-block')).toBeHidden();
});

test('a run outlives a reload with its arguments; Copy as curl and Re-run take them again', async ({ consolePage, page, context, capstan }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const detail = await consolePage.select('time_now');
  await detail.getByLabel('timezone').fill('Asia/Tokyo');
  await detail.getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');
  const requestId = await consolePage.requestIdOf(consolePage.latestExecution);

  // The gateway kept it: a reload shows the same run, with what it sent.
  await page.reload();
  const entry = consolePage.latestExecution;
  await expect(entry.getByTestId('request-id')).toHaveText(requestId);
  await expect(entry.getByTestId('execution-arguments')).toHaveText('{"timezone":"Asia/Tokyo"}');
  await expect(entry).toContainText('ok');

  await entry.getByRole('button', { name: 'Copy as curl' }).click();
  await expect(entry.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(
    `curl -sS -X POST ${capstan.origin}/tools/call -H "Authorization: Bearer $CAPSTAN_TOKEN" -H 'content-type: application/json' --data '{"tool":"time_now","arguments":{"timezone":"Asia/Tokyo"}}'`,
  );

  await entry.getByRole('button', { name: 'Re-run' }).click();
  await expect(consolePage.detail('time_now').getByLabel('timezone')).toHaveValue('Asia/Tokyo');
});

test('arguments typed in the generated form are sent, and Enter runs the tool', async ({ consolePage }) => {
  const detail = await consolePage.select('time_now');
  await detail.getByLabel('timezone').fill('Asia/Tokyo');
  await detail.getByLabel('timezone').press('Enter');

  const response = (await consolePage.responseOf(consolePage.latestExecution)) as { result: { timezone: string; utcOffset: string } };
  expect(response.result.timezone).toBe('Asia/Tokyo');
  expect(response.result.utcOffset).toBe('+09:00');
});

test('the newest execution comes first and each run gets its own requestId', async ({ consolePage }) => {
  await (await consolePage.select('time_now')).getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.executionEntries).toHaveCount(1);
  await expect(consolePage.latestExecution).toContainText('ok');
  await (await consolePage.select('local_status')).getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.executionEntries).toHaveCount(2);

  await expect(consolePage.executionEntries.nth(0)).toContainText('local_status');
  await expect(consolePage.executionEntries.nth(1)).toContainText('time_now');
  // Only the newest result is expanded by itself.
  await expect(consolePage.executionEntries.nth(0).locator('pre.json-block')).toBeVisible();
  await expect(consolePage.executionEntries.nth(1).locator('pre.json-block')).toBeHidden();
  const ids = await consolePage.executions.getByTestId('request-id').allTextContents();
  expect(new Set(ids).size).toBe(2);
});

test('note_search without a query is not sent: the field says the query is required', async ({ consolePage, page }) => {
  // note_search is read-only by default; whitelist it through Settings first.
  await page.getByRole('button', { name: 'Settings' }).click();
  await consolePage.settingsDialog().getByRole('checkbox', { name: /note_search/ }).check();
  await consolePage.settingsDialog().getByRole('button', { name: 'Save' }).click();
  await expect(consolePage.tool('note_search')).toHaveAttribute('data-state', 'executable');

  const detail = await consolePage.select('note_search');
  await detail.getByRole('button', { name: 'Execute' }).click();

  const query = detail.getByLabel('query');
  await expect(query).toHaveAttribute('aria-invalid', 'true');
  await expect(query).toHaveAccessibleDescription(/query is required/);
  await expect(detail.getByRole('alert')).toContainText(/One argument needs fixing:\s*query is required/);
  await expect(consolePage.executionEntries).toHaveCount(0);
});

test('Form and JSON edit the same arguments; JSON that does not parse is an error on the editor', async ({ consolePage }) => {
  const detail = await consolePage.select('time_now');
  await detail.getByLabel('timezone').fill('Asia/Tokyo');
  await detail.getByRole('button', { name: 'JSON', exact: true }).click();
  const editor = detail.getByLabel('Arguments (JSON)');
  expect(JSON.parse(await editor.inputValue())).toEqual({ timezone: 'Asia/Tokyo' });

  await editor.fill('{"timezone": ');
  await expect(editor).toHaveAttribute('aria-invalid', 'true');
  await expect(editor).toHaveAccessibleDescription(/Not valid JSON/);
  // The form cannot show it, so the switch waits until it is fixed.
  await detail.getByRole('button', { name: 'Form', exact: true }).click();
  await expect(editor).toBeFocused();

  await editor.fill('{"timezone": "Europe/Paris"}');
  await detail.getByRole('button', { name: 'Form', exact: true }).click();
  await expect(detail.getByLabel('timezone')).toHaveValue('Europe/Paris');
  await detail.getByRole('button', { name: 'JSON', exact: true }).click();
  await editor.fill('{"timezone": "UTC"}');
  await detail.getByRole('button', { name: 'Execute' }).click();
  const response = (await consolePage.responseOf(consolePage.latestExecution)) as { result: { timezone: string } };
  expect(response.result.timezone).toBe('UTC');
});

test('array arguments from the generated form reach the tool: a note added with tags is found again', async ({ consolePage, page }) => {
  await page.getByRole('button', { name: 'Settings' }).click();
  await consolePage.settingsDialog().getByRole('checkbox', { name: /note_add/ }).check();
  await consolePage.settingsDialog().getByRole('checkbox', { name: /note_search/ }).check();
  await consolePage.settingsDialog().getByRole('button', { name: 'Save' }).click();

  const add = await consolePage.select('note_add');
  await add.getByLabel('body').fill('The printer on floor 3 is offline after the switch swap');
  await add.getByRole('button', { name: '+ Add item' }).click();
  await add.getByRole('button', { name: '+ Add item' }).click();
  await add.getByRole('textbox', { name: 'tags-1' }).fill('printer');
  await add.getByRole('textbox', { name: 'tags-2' }).fill('floor-3');
  await add.getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');
  const added = (await consolePage.responseOf(consolePage.latestExecution)) as { result: { tags: string[] } };
  expect(added.result.tags).toEqual(['printer', 'floor-3']);

  const search = await consolePage.select('note_search');
  await search.getByLabel('query').fill('printer');
  await search.getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.executionEntries).toHaveCount(2);
  await expect(consolePage.latestExecution).toContainText('note_search');
  const found = (await consolePage.responseOf(consolePage.latestExecution)) as { result: { total: number } };
  expect(found.result.total).toBe(1);
});

test('a view-only tool shows its form without Execute and says how to make it one-click', async ({ consolePage }) => {
  const detail = await consolePage.select('note_search');
  await expect(detail.getByText('Not one of your one-click tools — add it in Settings to run it here')).toBeVisible();
  await expect(detail.getByRole('button', { name: 'Execute' })).toHaveCount(0);
  await expect(detail.getByLabel('query')).toBeDisabled();
  await expect(detail).toContainText('View only here');
});

// The README's screenshot, written to build/. Tagged @screenshot, it runs only under
// `npm run screenshot` (see playwright.config.ts), so a test run leaves the work tree as it was.
test('screenshot of the console after running time_now (for the README)', { tag: '@screenshot' }, async ({ consolePage, page }) => {
  await (await consolePage.select('time_now')).getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');
  // Show the list from its top, whichever tool selecting scrolled to.
  await consolePage.toolCards.first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: SCREENSHOT });
});
