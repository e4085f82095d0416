/**
 * The operator approves from the console: an agent (its own token, over HTTP as an MCP entry
 * would reach the same call path) calls http_check, which needs confirmation. The call waits;
 * the Approvals tab counts it as it arrives, shows the review (tool, risk, exact arguments), and
 * the operator's decision is what the agent hears. The target is a loopback server config.json
 * allows, so the test sees whether a request really went out.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locator, Page } from '@playwright/test';
import type { CapstanServer } from './capstanServer';
import { expect, test } from './fixtures';
import { fixtureStdio, mcpConfig, providerState } from './mcpServers';

interface Target {
  url: string;
  received: string[];
}

const approvalsTest = test.extend<{ target: Target; agentToken: string }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object.
  serveConfig: async ({}, use) => use({ httpCheck: { allow: ['127.0.0.1/32'] } }),
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object.
  target: async ({}, use) => {
    const received: string[] = [];
    const server: Server = createServer((request, response) => {
      received.push(request.url ?? '');
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await use({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received });
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  },
  agentToken: async ({ capstan }, use) => {
    const created = await fetch(`${capstan.origin}/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${capstan.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'e2e-agent' }),
    });
    expect(created.status).toBe(200);
    await use(((await created.json()) as { token: string }).token);
  },
});

/** The agent's call, sent outside the page; it resolves only once the operator decided. */
async function agentCall(capstan: CapstanServer, token: string, args: Record<string, unknown>) {
  const response = await fetch(`${capstan.origin}/tools/call`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool: 'http_check', arguments: args }),
  });
  return { status: response.status, body: (await response.json()) as { ok: boolean; result?: { status: number }; error?: { code: string; message: string } } };
}

const approvalsTab = (page: Page) => page.getByRole('tablist', { name: 'Activity views' }).getByRole('tab', { name: /^Approvals/ });

async function openApprovals(page: Page): Promise<Locator> {
  await approvalsTab(page).click();
  const panel = page.getByRole('tabpanel', { name: /^Approvals/ });
  await expect(panel).toBeVisible();
  return panel;
}

approvalsTest('an agent’s call waits, is counted and reviewed in Approvals, and runs once when approved', async ({ consolePage, page, capstan, agentToken, target }) => {
  void consolePage;
  const args = { url: `${target.url}/deploy-check`, method: 'HEAD' };
  const call = agentCall(capstan, agentToken, args);

  // It arrives while the dock is collapsed: the tab counts it.
  await expect(approvalsTab(page).getByTestId('approvals-count')).toHaveText('1');
  const panel = await openApprovals(page);
  const card = panel.getByRole('article', { name: 'agent:e2e-agent asks to run http_check' });
  await expect(card).toBeVisible();
  await expect(card.getByText('medium risk')).toBeVisible();
  await expect(card.getByText(/expires in/)).toBeVisible();
  expect(JSON.parse((await card.getByTestId('approval-arguments').textContent()) ?? '')).toEqual(args);
  expect(target.received).toEqual([]);

  await card.getByRole('button', { name: 'Approve and run' }).click();
  const answer = await call;
  expect(answer).toMatchObject({ status: 200, body: { ok: true, result: { status: 204 } } });
  expect(target.received).toEqual(['/deploy-check']);

  await expect(card).toHaveCount(0);
  await expect(approvalsTab(page).getByTestId('approvals-count')).toHaveCount(0);
  await expect(panel.getByRole('listitem').filter({ hasText: 'Approved' })).toContainText('agent:e2e-agent');
});

approvalsTest('a denied call answers the agent with CONFIRMATION_DENIED and the operator’s note; nothing runs', async ({ consolePage, page, capstan, agentToken, target }) => {
  void consolePage;
  const call = agentCall(capstan, agentToken, { url: `${target.url}/drop-tables` });
  const panel = await openApprovals(page);
  const card = panel.getByRole('article', { name: /asks to run http_check/ });
  await card.getByLabel('Note for the agent (optional)').fill('not on production');
  await card.getByRole('button', { name: 'Deny' }).click();

  const answer = await call;
  expect(answer.status).toBe(403);
  expect(answer.body.error).toMatchObject({ code: 'CONFIRMATION_DENIED', message: expect.stringContaining('not on production') });
  expect(target.received).toEqual([]);
  const denied = panel.getByRole('listitem').filter({ hasText: 'Denied' });
  await expect(denied).toContainText('not on production');
  await expect(panel.getByText('No agent is waiting.')).toBeVisible();
});

/**
 * Records each Notification the page constructs (title and body), in the page before its own
 * script runs; the real constructor still runs. A string: it runs in the page, whose types the
 * tests' TypeScript project does not have.
 */
const RECORD_NOTIFICATIONS = `
  window.__notifications = [];
  const Real = window.Notification;
  if (Real) {
    class Recorded extends Real {
      constructor(title, options) {
        window.__notifications.push({ title, body: options && options.body });
        super(title, options);
      }
    }
    window.Notification = Recorded;
  }`;

const notifiedTest = approvalsTest.extend({
  page: async ({ page, context }, use) => {
    await context.grantPermissions(['notifications']);
    await page.addInitScript({ content: RECORD_NOTIFICATIONS });
    await use(page);
  },
});

const notifications = (page: Page) => page.evaluate<{ title: string; body: string }[]>('window.__notifications');

notifiedTest('a waiting call shows in the header, the title and a notification; A opens the queue; each decision shows what happened', async ({
  consolePage,
  page,
  capstan,
  agentToken,
  target,
}) => {
  void consolePage;
  await page.setViewportSize({ width: 1024, height: 768 });
  await expect(page).toHaveTitle('Capstan');
  await expect(page.getByTestId('approvals-indicator')).toHaveCount(0);

  // Notifications are the operator's choice, made in the queue; the page never asked on load.
  expect(await page.evaluate<string>('Notification.permission')).toBe('granted');
  let panel = await openApprovals(page);
  await panel.getByRole('button', { name: 'Notify me of new approvals' }).click();
  await expect(panel.getByTestId('approvals-notify')).toContainText('Desktop notifications on');
  await page.getByRole('button', { name: 'Collapse the activity dock' }).click();
  await expect(panel).toBeHidden();
  expect(await notifications(page)).toEqual([]);

  const approved = agentCall(capstan, agentToken, { url: `${target.url}/health` });
  const indicator = page.getByTestId('approvals-indicator');
  await expect(indicator).toContainText(/^1\s*approval\s*· oldest \d+ s$/);
  await expect(page).toHaveTitle('(1) Capstan');
  await expect.poll(() => notifications(page)).toEqual([
    { title: 'Approval needed', body: 'agent:e2e-agent asks to run http_check (medium risk). Review it in Approvals.' },
  ]);
  await expect(indicator).toHaveAttribute('aria-keyshortcuts', 'a');
  // The header makes room for it and keeps one line: the last figure ends before the buttons begin.
  expect((await page.getByRole('banner').boundingBox())?.height).toBeLessThan(64);
  const lastFigure = await page.getByLabel('Registry summary').locator('.counts__item:visible').last().boundingBox();
  const nav = await page.getByRole('navigation', { name: 'Console' }).boundingBox();
  expect(lastFigure && nav && lastFigure.x + lastFigure.width <= nav.x).toBe(true);

  // `a` from outside a text field opens the queue on the oldest, its decision in view without scrolling.
  await page.locator('body').click({ position: { x: 5, y: 700 } });
  await page.keyboard.press('a');
  panel = page.getByRole('tabpanel', { name: /^Approvals/ });
  const first = panel.getByRole('article', { name: 'agent:e2e-agent asks to run http_check' });
  await expect(first).toBeFocused();
  await expect(first.getByRole('button', { name: 'Approve and run' })).toBeInViewport({ ratio: 1 });
  await expect(first.getByRole('button', { name: 'Deny' })).toBeInViewport({ ratio: 1 });
  await first.getByRole('button', { name: 'Approve and run' }).click();
  expect(await approved).toMatchObject({ status: 200, body: { ok: true, result: { status: 204 } } });
  const approvedRow = panel.getByRole('listitem').filter({ hasText: 'Approved' });
  await expect(approvedRow.getByTestId('approval-outcome')).toHaveText(/^Ran ok in [\d.]+ ms$/);
  await expect(page).toHaveTitle('Capstan');
  await expect(indicator).toHaveCount(0);

  // At 1440×900, from the header's indicator: a second call, denied.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.getByRole('button', { name: 'Collapse the activity dock' }).click();
  const denied = agentCall(capstan, agentToken, { url: `${target.url}/drop-tables` });
  await expect(indicator).toContainText(/^1\s*approval\s*· oldest \d+ s$/);
  await expect(page).toHaveTitle('(1) Capstan');
  await expect.poll(async () => (await notifications(page)).length).toBe(2);
  // Wherever the header changes, the waiting call takes no room from the figures.
  for (const width of [1440, 1535, 1536, 1599, 1600, 1699, 1700, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    const lastFigure = await page.getByLabel('Registry summary').locator('.counts__item:visible').last().boundingBox();
    const nav = await page.getByRole('navigation', { name: 'Console' }).boundingBox();
    expect(lastFigure && nav && lastFigure.x + lastFigure.width <= nav.x, `at ${width} px`).toBe(true);
  }
  await indicator.click();
  const second = panel.getByRole('article', { name: /asks to run http_check/ });
  await expect(second).toBeFocused();
  await expect(second.getByRole('button', { name: 'Deny' })).toBeInViewport({ ratio: 1 });
  await expect(second.getByRole('button', { name: 'Approve and run' })).toBeInViewport({ ratio: 1 });
  await second.getByRole('button', { name: 'Deny' }).click();
  expect((await denied).status).toBe(403);
  await expect(panel.getByRole('listitem').filter({ hasText: 'Denied' })).toContainText('did not run');

  // A third, approved, that fails: its code is beside the decision.
  const refused = agentCall(capstan, agentToken, { url: 'http://10.0.0.1:9/' });
  await expect(page).toHaveTitle('(1) Capstan');
  await panel.getByRole('article', { name: /asks to run http_check/ }).getByRole('button', { name: 'Approve and run' }).click();
  expect((await refused).body.error?.code).toBe('DESTINATION_REFUSED');
  await expect(panel.getByRole('listitem').filter({ hasText: 'Approved' }).getByTestId('approval-outcome')).toHaveText(['Failed: DESTINATION_REFUSED', /^Ran ok/]);

  await expect(page).toHaveTitle('Capstan');
  await expect(indicator).toHaveCount(0);
  expect(target.received).toEqual(['/health']);
});

approvalsTest.describe('an MCP server’s tool in the queue', () => {
  approvalsTest.use({ serveConfig: mcpConfig({ fixture: fixtureStdio() }) });

  approvalsTest('is named by its id, and its arguments show a right-to-left override and a zero-width space for what they are', async ({ consolePage, page, capstan, agentToken }) => {
    void consolePage;
    await providerState(capstan, 'fixture', 'ready');
    // `plain` declares no annotations: Capstan takes it as destructive, so an agent's call waits for approval.
    const text = 'invoice_\u202Efdp.sh\u202C zero\u200Bwidth';
    const call = fetch(`${capstan.origin}/tools/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'fixture:plain', arguments: { text } }),
    });
    const panel = await openApprovals(page);
    // Not `plain` alone, which another server's tool, or a builtin, could be named too.
    const card = panel.getByRole('article', { name: 'agent:e2e-agent asks to run fixture:plain' });
    await expect(card).toBeVisible();
    const shown = (await card.getByTestId('approval-arguments').textContent()) ?? '';
    expect(shown).toContain('invoice_\\u{202E}fdp.sh\\u{202C} zero\\u{200B}width');
    expect(shown).not.toMatch(/[\u200B\u202A-\u202E]/);
    await card.getByRole('button', { name: 'Deny' }).click();
    expect((await call).status).toBe(403);
  });
});
