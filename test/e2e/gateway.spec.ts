/** What the console says when it cannot use its gateway. */
import { startCapstan } from './capstanServer';
import { expect, GATEWAY_STOPPED, test } from './fixtures';
import { BUILTIN } from '../support/builtins';

test('opening the console without its token tells the operator to use the printed URL', async ({ page, capstan }) => {
  await page.goto(`${capstan.origin}/`);
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('UNAUTHORIZED');
  await expect(alert).toContainText('Open the console URL that capstan serve printed');
  await expect(page.getByRole('article')).toHaveCount(0);
  // The event stream is refused too, and the header says the page is not live.
  await expect(page.locator('[data-live]')).toHaveText('Not live');
});

test('a wrong token is refused the same way', async ({ page, capstan }) => {
  await page.goto(`${capstan.origin}/#token=not-the-token`);
  await expect(page.getByRole('alert')).toContainText('Open the console URL that capstan serve printed');
});

test('the token leaves the address bar once the console has it', async ({ consolePage, page }) => {
  await expect(consolePage.count('total')).toHaveText(String(BUILTIN.total));
  expect(new URL(page.url()).hash).toBe('');
});

test('when the gateway cannot be reached the console says so, and Retry recovers', async ({ page, capstan, dataDir, pageProblems }) => {
  // A stop and a start of the gateway within one test: on a loaded machine that alone takes seconds.
  test.setTimeout(60_000);
  pageProblems.allow(GATEWAY_STOPPED);
  // The page itself must load from the gateway, so the gateway is stopped once the page asks for
  // the catalog: page.route only holds that first read until the real gateway is down, then lets
  // it go out, to be refused by the closed port. Nothing answers in the gateway's place.
  await page.route(
    '**/catalog',
    async (route) => {
      await capstan.stop();
      await route.continue();
    },
    { times: 1 },
  );
  await page.goto(capstan.consoleUrl);
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('Cannot reach the Capstan gateway', { timeout: 15_000 });
  await expect(alert).toContainText('capstan serve');

  const restarted = await startCapstan(dataDir, { port: Number(new URL(capstan.origin).port), token: capstan.token });
  try {
    await alert.getByRole('button', { name: 'Retry' }).click();
    await expect(page.getByRole('article', { name: 'time_now' })).toBeVisible({ timeout: 10_000 });
    await expect(page.getByRole('alert')).toHaveCount(0);
  } finally {
    await restarted.stop();
  }
});

test('a gateway that stops: the call is recorded with the console\'s own code, a banner says so, Execute is off, and Retry now brings everything back', async ({
  consolePage,
  capstan,
  dataDir,
  pageProblems,
}) => {
  // A stop and a start of the gateway within one test: on a loaded machine that alone takes seconds.
  test.setTimeout(60_000);
  pageProblems.allow(GATEWAY_STOPPED);
  const { page } = consolePage;
  const ledger = await consolePage.openLedger();
  await ledger.getByRole('button', { name: 'Verify chain' }).click();
  await expect(ledger.locator('[data-verdict="ok"]')).toBeVisible();
  const detail = await consolePage.select('time_now');
  const execute = detail.getByRole('button', { name: 'Execute' });
  // A call sent before the page can know: the gateway stops while the call is on its way (page.route
  // only holds it until the real gateway is down), so nothing answers it.
  await page.route(
    '**/tools/call',
    async (route) => {
      await capstan.stop();
      await route.continue();
    },
    { times: 1 },
  );
  await execute.click();
  const entry = consolePage.latestExecution;
  await expect(entry).toContainText('GATEWAY_UNREACHABLE');
  await expect(entry).toContainText('The gateway cannot be reached');
  expect(await consolePage.requestIdOf(entry)).toMatch(/^tool-registry-/);

  const banner = page.getByRole('alert').filter({ hasText: 'Cannot reach the Capstan gateway' });
  await expect(banner).toContainText('GATEWAY_UNREACHABLE, reported by this console, not by the gateway');
  await expect(execute).toHaveAttribute('aria-disabled', 'true');
  // Pressed anyway (force: Playwright would wait for it to be enabled), it sends nothing.
  await execute.click({ force: true });
  await expect(consolePage.executionEntries).toHaveCount(1);

  // The event stream would wait out its backoff; Retry now asks at once. A gateway that restarts
  // quickly may be found by the stream's own retry first, taking the banner (and its button) away
  // under the click: then it came back by itself, which is as good (Retry now alone: the test above).
  const restarted = await startCapstan(dataDir, { port: Number(new URL(capstan.origin).port), token: capstan.token });
  try {
    await banner
      .getByRole('button', { name: 'Retry now' })
      .click({ timeout: 5_000 })
      .catch(async (error: unknown) => {
        if ((await banner.count()) > 0) throw error;
      });
    await expect(banner).toHaveCount(0, { timeout: 10_000 });
    await expect(page.locator('[data-live]')).toHaveText('Live');
    await expect(execute).not.toHaveAttribute('aria-disabled', 'true');
    // What was read before is read again: the chain's verdict no longer stands.
    await expect(ledger.locator('[data-verdict]')).toHaveCount(0);
  } finally {
    await restarted.stop();
  }
});
