/**
 * The live Ledger view: entries of calls run from the console appear as they are written, under
 * the requestId shown in Recent executions; evidence and the chain verify, and Verify chain names
 * each kind of tampering with the files; filters narrow it; bursts of entries are taken in
 * without polling; a reconnecting stream catches up.
 */
import { readFile } from 'node:fs/promises';
import type { Request } from '@playwright/test';
import { LEDGER_PROBLEM_NAMES } from '../../shared/ledger';
import { MIN_ENTRIES, tamperings } from '../support/tamper';
import { startCapstan } from './capstanServer';
import { expect, GATEWAY_STOPPED, test } from './fixtures';
import { gatewayApi } from './gatewayApi';

/** GET /ledger requests the page sends, to show the view is fed by events rather than polling. */
function countLedgerReads(requests: Request[]) {
  return requests.filter((request) => request.method() === 'GET' && new URL(request.url()).pathname === '/ledger').length;
}

test('tools run from the console show their call_started and call_finished entries live, under the same requestId', async ({ consolePage, page }) => {
  const ledger = await consolePage.openLedger();
  await expect(ledger.getByText('The ledger is empty')).toBeVisible();
  const requests: Request[] = [];
  page.on('request', (request) => requests.push(request));

  await (await consolePage.select('time_now')).getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');
  const first = await consolePage.requestIdOf(consolePage.latestExecution);
  await expect(consolePage.ledgerRows({ requestId: first })).toHaveCount(2);
  await expect(consolePage.ledgerRows({ requestId: first, kind: 'call_started' })).toContainText('builtin:time_now');
  // The duration is the card's own, written the same way (once the gateway's record of the run has
  // replaced the page's first measure); the time carries the date; the id its distinguishing tail.
  const finished = consolePage.ledgerRows({ requestId: first, kind: 'call_finished' });
  await expect(finished).toContainText(/ok · [\d.]+ ms · result [0-9a-f]{8}…/);
  const duration = /ok · ([\d.]+ ms) · result/.exec((await finished.textContent()) ?? '')![1]!;
  await expect(consolePage.latestExecution.locator('.execution__duration')).toHaveText(duration);
  await expect(finished.locator('time')).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
  await expect(finished.locator('.id-text__tail').first()).toBeInViewport();
  await expect(finished.getByTitle(first)).toHaveText(first);

  await (await consolePage.select('local_status')).getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.executionEntries).toHaveCount(2);
  const second = await consolePage.requestIdOf(consolePage.latestExecution);
  await expect(consolePage.ledgerRows({ requestId: second })).toHaveCount(2);
  // Newest first: the second call's end is the top row.
  await expect(consolePage.ledgerRows().first()).toHaveAttribute('data-request-id', second);
  await expect(consolePage.ledgerRows().first()).toHaveAttribute('data-kind', 'call_finished');
  // The first manual call started "Manual calls"; its transitions are in the ledger too.
  await expect(consolePage.ledgerRows({ kind: 'task_transition' }).filter({ hasText: 'Manual calls' })).toHaveCount(1);
  // Fed by events: running tools made the page read GET /ledger no more.
  expect(countLedgerReads(requests)).toBe(0);
});

test('Verify evidence says the shown result matches its ledger entry, and Ledger entries opens the view on that requestId', async ({ consolePage, page }) => {
  await (await consolePage.select('time_now')).getByRole('button', { name: 'Execute' }).click();
  const entry = consolePage.latestExecution;
  await expect(entry).toContainText('ok');
  const requestId = await consolePage.requestIdOf(entry);

  await entry.getByRole('button', { name: 'Verify evidence' }).click();
  const verdict = entry.locator('[data-verdict]');
  await expect(verdict).toHaveAttribute('data-verdict', 'match');
  await expect(verdict).toContainText(/Matches ledger entry #\d+/);
  const seq = Number((await verdict.getByRole('button').textContent())?.replace('#', ''));

  // Focused, the button and its focus ring (2 px, 2 px off) keep clear of the requestId it is for.
  const ledgerEntries = entry.getByRole('button', { name: 'Ledger entries' });
  await ledgerEntries.focus();
  const button = await ledgerEntries.boundingBox();
  const shownId = await entry.getByTestId('request-id').boundingBox();
  const ring = 4;
  expect(button && shownId).toBeTruthy();
  if (button && shownId) {
    const apart =
      button.x - ring >= shownId.x + shownId.width ||
      button.y - ring >= shownId.y + shownId.height ||
      button.x + button.width + ring <= shownId.x ||
      button.y + button.height + ring <= shownId.y;
    expect(apart, `button ${JSON.stringify(button)} and requestId ${JSON.stringify(shownId)}`).toBe(true);
  }
  await ledgerEntries.click();
  const ledger = page.getByRole('tabpanel', { name: /^Ledger/ });
  await expect(ledger.getByLabel('requestId')).toHaveValue(requestId);
  await expect(ledger.locator('[data-ledger-shown]')).toHaveAttribute('data-ledger-shown', '2');
  await expect(consolePage.ledgerRows()).toHaveCount(2);
  await expect(consolePage.ledgerRows({ requestId })).toHaveCount(2);
  // The entry the evidence matched is this call's call_finished.
  await expect(consolePage.ledgerRows({ kind: 'call_finished' })).toHaveAttribute('data-seq', String(seq));

  // Its drawer shows every field in full and the digests.
  await consolePage.ledgerRows({ kind: 'call_finished' }).click();
  const drawer = page.getByRole('dialog', { name: `Ledger entry #${seq}` });
  await expect(drawer).toContainText(requestId);
  await expect(drawer).toContainText('"resultDigest"');
  await expect(drawer.getByText(/^[0-9a-f]{64}$/).first()).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(drawer).toBeHidden();

  // The task link shows the whole task's entries: its transitions as well as the call.
  await entry.getByTestId('task-id').click();
  await expect(ledger.getByLabel('requestId')).toHaveValue('');
  await expect(ledger.getByLabel('Task')).not.toHaveValue('');
  await expect(consolePage.ledgerRows({ kind: 'task_transition' })).not.toHaveCount(0);
  await expect(consolePage.ledgerRows({ requestId })).toHaveCount(2);
});

test('a result that differs from the recorded one is reported as a mismatch', async ({ consolePage, page }) => {
  await (await consolePage.select('time_now')).getByRole('button', { name: 'Execute' }).click();
  const entry = consolePage.latestExecution;
  await expect(entry).toContainText('ok');
  // The page has no way to show a result other than the one it received, so the result is altered
  // on its way to the real gateway, which alone judges it against the ledger.
  await page.route('**/ledger/evidence', (route) => {
    const body = route.request().postDataJSON() as { requestId: string; result: Record<string, unknown> };
    return route.continue({ postData: JSON.stringify({ ...body, result: { ...body.result, timezone: 'Mars/Olympus_Mons' } }) });
  });
  await entry.getByRole('button', { name: 'Verify evidence' }).click();
  const verdict = entry.locator('[data-verdict]');
  await expect(verdict).toHaveAttribute('data-verdict', 'mismatch');
  await expect(verdict).toContainText(/Does not match ledger entry #\d+: differs from the digest in ledger entry \d+/);
});

test('Verify chain reports an intact chain with its length', async ({ consolePage, capstan }) => {
  await gatewayApi(capstan, 'POST', '/tools/call', { tool: 'time_now' });
  const ledger = await consolePage.openLedger();
  const { lastSeq } = await gatewayApi<{ lastSeq: number }>(capstan, 'GET', '/ledger?limit=1');
  await ledger.getByRole('button', { name: 'Verify chain' }).click();
  await expect(ledger.locator('[data-verdict="ok"]')).toHaveText(`Chain intact: ${lastSeq} entries, up to #${lastSeq}, sealed at #${lastSeq}`);
});

for (const { problem, what, brokenAt, apply } of tamperings) {
  test(`Verify chain names ${LEDGER_PROBLEM_NAMES[problem]} and where, when ${what} while the gateway runs`, async ({ consolePage, capstan, dataDir }) => {
    for (let i = 0; i < MIN_ENTRIES / 2; i++) await gatewayApi(capstan, 'POST', '/tools/call', { tool: 'time_now' });
    const ledger = await consolePage.openLedger();
    const verifyChain = ledger.getByRole('button', { name: 'Verify chain' });
    await verifyChain.click();
    await expect(ledger.locator('[data-verdict="ok"]')).toBeVisible();
    const { lastSeq: head } = await gatewayApi<{ lastSeq: number }>(capstan, 'GET', '/ledger?limit=1');

    // As someone holding the files would: node:sqlite on capstan.sqlite, triggers dropped, or ledger.head itself.
    apply(dataDir);
    await verifyChain.click();
    const verdict = ledger.locator('[data-verdict="broken"]');
    await expect(verdict).toHaveAttribute('data-problem', problem);
    await expect(verdict).toContainText(`Chain broken, ${LEDGER_PROBLEM_NAMES[problem]} at #${brokenAt(head)}: `);
  });
}

test('a burst of hundreds of entries a second is taken in live, in a virtualized grid, without polling', async ({ consolePage, page, capstan }) => {
  const ledger = await consolePage.openLedger();
  await expect(ledger.getByText('The ledger is empty')).toBeVisible();
  const requests: Request[] = [];
  page.on('request', (request) => requests.push(request));
  // The page counts the longest gap between animation frames while the burst arrives.
  await page.evaluate(`(() => {
    window.__maxFrameGap = 0;
    let last = performance.now();
    const tick = (now) => { window.__maxFrameGap = Math.max(window.__maxFrameGap, now - last); last = now; if (!window.__stopFrames) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  })()`);

  // The burst comes from an agent, as bulk calls do: the operator's own calls would also fill
  // Recent executions, which is not what this test measures.
  const { token } = await gatewayApi<{ token: string }>(capstan, 'POST', '/agents', { name: 'burst' });
  const agent = { ...capstan, token };
  const CALLS = 400;
  const started = Date.now();
  await Promise.all(Array.from({ length: CALLS }, (_, index) => gatewayApi(agent, 'POST', '/tools/call', { tool: 'time_now', requestId: `burst-${index}` })));
  const { lastSeq } = await gatewayApi<{ lastSeq: number }>(capstan, 'GET', '/ledger?limit=1');
  const perSecond = (lastSeq / (Date.now() - started)) * 1000;

  // Every entry reached the page: the newest is on top and the count is the ledger's.
  await expect(ledger.locator('[data-ledger-shown]')).toHaveAttribute('data-ledger-shown', String(lastSeq));
  await expect(consolePage.ledgerRows().first()).toHaveAttribute('data-seq', String(lastSeq));
  expect(lastSeq).toBeGreaterThanOrEqual(2 * CALLS);
  // Only a window of rows is in the DOM.
  expect(await consolePage.ledgerRows().count()).toBeLessThan(60);
  expect(countLedgerReads(requests)).toBe(0);
  const maxFrameGap = await page.evaluate<number>('(window.__stopFrames = true, window.__maxFrameGap)');
  test.info().annotations.push({ type: 'burst', description: `${lastSeq} entries at ${Math.round(perSecond)}/s; longest frame gap ${Math.round(maxFrameGap)} ms` });
  // Generous for a 2-core machine running two browsers: a page that rendered per event stalls
  // for seconds (5-8 s when Recent executions drew every run of a burst), a quiet one 0.1-0.3 s.
  expect(maxFrameGap).toBeLessThan(500);

  // Filters narrow what is held at once; the kind applies as soon as it is chosen.
  await ledger.getByLabel('Kind').selectOption('call_finished');
  await expect(ledger.locator('[data-ledger-shown]')).toHaveAttribute('data-ledger-shown', String(CALLS));
  await expect(consolePage.ledgerRows({ kind: 'call_started' })).toHaveCount(0);
  // Typed text matches any part of an id and applies without Enter: burst-7 and burst-70…79.
  await ledger.getByLabel('requestId').fill('burst-7');
  await expect(ledger.locator('[data-ledger-shown]')).toHaveAttribute('data-ledger-shown', '11');
  await ledger.getByLabel('requestId').fill('t-399');
  await expect(consolePage.ledgerRows()).toHaveCount(1);
  await expect(consolePage.ledgerRows({ requestId: 'burst-399', kind: 'call_finished' })).toHaveCount(1);
  // Export JSONL downloads every matching entry from the gateway, one a line.
  const download = page.waitForEvent('download');
  await ledger.getByRole('button', { name: 'Export JSONL' }).click();
  const lines = (await readFile(await (await download).path(), 'utf8')).trimEnd().split('\n');
  expect(lines.map((line) => (JSON.parse(line) as { requestId: string }).requestId)).toEqual(['burst-399']);
  await ledger.getByRole('button', { name: 'Clear' }).click();
  await expect(ledger.locator('[data-ledger-shown]')).toHaveAttribute('data-ledger-shown', String(lastSeq));
});

test('reading older rows keeps them in place while new entries arrive on top', async ({ consolePage, page, capstan }) => {
  for (let batch = 0; batch < 4; batch += 1) {
    await Promise.all(Array.from({ length: 25 }, () => gatewayApi(capstan, 'POST', '/tools/call', { tool: 'time_now' })));
  }
  await page.reload();
  const ledger = await consolePage.openLedger();
  const grid = ledger.getByRole('grid', { name: 'Ledger entries, newest first' });
  await expect(consolePage.ledgerRows().first()).toBeVisible();
  // Keyboard: focus the grid, walk down to an older row.
  await grid.focus();
  for (let step = 0; step < 12; step += 1) await page.keyboard.press('ArrowDown');
  const focused = ledger.locator('[role="row"][aria-selected="true"]');
  const seq = await focused.getAttribute('data-seq');
  const before = await focused.boundingBox();

  await Promise.all(Array.from({ length: 10 }, () => gatewayApi(capstan, 'POST', '/tools/call', { tool: 'time_now' })));
  await expect(ledger.getByRole('button', { name: /\d+ new/ })).toBeVisible();
  const after = await ledger.locator(`[role="row"][data-seq="${seq}"]`).boundingBox();
  expect(after?.y).toBeCloseTo(before?.y ?? 0, 0);

  // Enter opens the focused entry.
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog', { name: `Ledger entry #${seq}` })).toBeVisible();
  await page.keyboard.press('Escape');
  await ledger.getByRole('button', { name: /\d+ new/ }).click();
  await expect(ledger.getByRole('button', { name: /\d+ new/ })).toBeHidden();
});

test('after the gateway restarts, the Ledger view reads the entries its event stream missed', async ({ consolePage, capstan, dataDir, pageProblems }) => {
  pageProblems.allow(GATEWAY_STOPPED);
  const { page } = consolePage;
  const ledger = await consolePage.openLedger();
  await gatewayApi(capstan, 'POST', '/tools/call', { tool: 'time_now', requestId: 'before-restart' });
  await expect(consolePage.ledgerRows({ requestId: 'before-restart' })).toHaveCount(2);
  // Keep the page's stream from coming back until the test lets it: the next call must be written
  // while the page surely has no stream, or an event could carry it and nothing would prove the catch-up.
  // The gateway itself is real; only the page's reconnects are refused.
  await page.route('**/events', (route) => route.abort('connectionrefused'));
  await capstan.stop();
  await expect(page.locator('[data-live]')).toHaveText('Reconnecting…');
  const restarted = await startCapstan(dataDir, { port: Number(new URL(capstan.origin).port), token: capstan.token });
  try {
    // Written while the page's stream is down: no event will ever carry it to this page.
    await gatewayApi(restarted, 'POST', '/tools/call', { tool: 'time_now', requestId: 'while-reconnecting' });
    await page.unroute('**/events');
    await expect(page.locator('[data-live]')).toHaveText('Live', { timeout: 15_000 });
    await expect(consolePage.ledgerRows({ requestId: 'while-reconnecting' })).toHaveCount(2);
    await gatewayApi(restarted, 'POST', '/tools/call', { tool: 'time_now', requestId: 'after-reconnect' });
    await expect(consolePage.ledgerRows({ requestId: 'after-reconnect' })).toHaveCount(2);
    // No entry twice.
    const seqs = await Promise.all((await consolePage.ledgerRows().all()).map((row) => row.getAttribute('data-seq')));
    expect(new Set(seqs).size).toBe(seqs.length);
    await expect(ledger.locator('[data-ledger-shown]')).toHaveAttribute('data-ledger-shown', String(seqs.length));
  } finally {
    await restarted.stop();
  }
});

/** An agent's calls and the operator's refused http_check: entries with a long principal and capability id. */
async function ledgerWithLongIds(capstan: Parameters<typeof gatewayApi>[0], calls = 3): Promise<void> {
  const { token } = await gatewayApi<{ token: string }>(capstan, 'POST', '/agents', { name: 'dispatcher-nightly' });
  const agent = { ...capstan, token };
  for (let index = 0; index < calls; index += 1) await gatewayApi(agent, 'POST', '/tools/call', { tool: 'time_now' });
  await gatewayApi(capstan, 'POST', '/tools/call', { tool: 'note_search', arguments: { query: 'ledger' } });
}

/** Whether an element shows all of its text: nothing cut by its own box. */
const notCut = (element: { scrollWidth: number; clientWidth: number }) => element.scrollWidth <= element.clientWidth;

test('at 1440×900 the ledger shows full capability ids and principals; at 1024×768 it takes two lines a row and the dock keeps its Collapse', async ({ consolePage, page, capstan }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await ledgerWithLongIds(capstan);
  const ledger = await consolePage.openLedger();
  await page.getByRole('button', { name: /^Maximize/ }).click();
  const grid = ledger.getByRole('grid', { name: 'Ledger entries, newest first' });
  await expect(grid).toHaveAttribute('data-layout', /wide|medium/);

  const agentRow = consolePage.ledgerRows({ kind: 'call_started' }).filter({ hasText: 'agent:dispatcher-nightly' }).first();
  const principal = agentRow.locator('.ledger-cell--principal');
  await expect(principal).toHaveText('agent:dispatcher-nightly');
  await expect.poll(() => principal.evaluate(notCut)).toBe(true);
  const capability = agentRow.locator('.ledger-cell--capability');
  await expect(capability).toHaveText('builtin:time_now');
  await expect.poll(() => capability.evaluate(notCut)).toBe(true);
  const noteRow = consolePage.ledgerRows({ kind: 'call_started' }).filter({ hasText: 'builtin:note_search' }).first();
  for (const cell of [noteRow.locator('.ledger-cell--capability'), noteRow.locator('.ledger-cell--capability .id-text__head'), noteRow.locator('.ledger-cell--kind')]) {
    await expect.poll(() => cell.evaluate(notCut)).toBe(true);
  }
  await expect(noteRow.locator('.ledger-cell--kind')).toHaveText('call_started');
  const transition = consolePage.ledgerRows({ kind: 'task_transition' }).first();
  await expect.poll(() => transition.locator('.ledger-cell--kind').evaluate(notCut)).toBe(true);

  // 1024×768: a layout of its own, every row readable, and the dock's controls whole.
  await page.setViewportSize({ width: 1024, height: 768 });
  await expect(grid).toHaveAttribute('data-layout', 'narrow');
  await expect(principal).toBeVisible();
  await expect.poll(() => capability.evaluate(notCut)).toBe(true);
  const collapse = page.getByRole('button', { name: /^Collapse/ });
  await expect(collapse).toBeInViewport({ ratio: 1 });
  const box = await collapse.boundingBox();
  const dock = await page.getByRole('region', { name: 'Activity' }).boundingBox();
  expect(box && dock && box.x + box.width <= dock.x + dock.width).toBe(true);
  await expect.poll(() => consolePage.ledgerRows().count()).toBeGreaterThanOrEqual(8);
});
