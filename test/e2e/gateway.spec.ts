/** What the console says when it cannot use its gateway. */
import { expect, test } from './fixtures';

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
  await expect(consolePage.count('total')).toHaveText('8');
  expect(new URL(page.url()).hash).toBe('');
});

test('when the gateway cannot be reached the console says so, and Retry recovers', async ({ page, capstan, pageProblems }) => {
  pageProblems.allow(/Failed to load resource: net::ERR_CONNECTION_REFUSED/);
  // The page itself must load from the gateway, so only the catalog read is refused, the way a
  // stopped gateway refuses it; the next test stops the real gateway for a call.
  await page.route('**/catalog', (route) => route.abort('connectionrefused'));
  await page.goto(capstan.consoleUrl);
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('Cannot reach the Capstan gateway', { timeout: 15_000 });
  await expect(alert).toContainText('capstan serve');

  await page.unroute('**/catalog');
  await alert.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByRole('article', { name: 'time_now' })).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('a call to a gateway that has stopped is recorded with its error', async ({ consolePage, capstan, pageProblems }) => {
  // The stop also cuts the live event stream mid-response.
  pageProblems.allow(/Failed to load resource: net::(ERR_CONNECTION_REFUSED|ERR_INCOMPLETE_CHUNKED_ENCODING)/);
  const detail = await consolePage.select('time_now');
  await capstan.stop();
  await detail.getByRole('button', { name: 'Execute' }).click();
  const entry = consolePage.latestExecution;
  await expect(entry).toContainText('GATEWAY_UNREACHABLE');
  await expect(entry).toContainText('The gateway cannot be reached');
  expect(await consolePage.requestIdOf(entry)).toMatch(/^tool-registry-/);
});
