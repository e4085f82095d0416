/**
 * The console's view lives in its address (issue 22: a reload dropped the selection, the filters
 * and the drafts): the selected capability, the search and the filters are in the query string,
 * so a reload or a link opens the same view, and the arguments being composed survive a reload
 * of the tab. The token never goes into the address.
 */
import { expect, test } from './fixtures';

test('a reload keeps the selected tool, the search, the filter and the draft; the token stays out of the address', async ({ consolePage, page }) => {
  await consolePage.filterButton('Confirmation required').click();
  await consolePage.filterInput.fill('http');
  const detail = await consolePage.select('http_check');
  await detail.getByLabel('url').fill('http://127.0.0.1:9/draft');
  await expect.poll(() => new URL(page.url()).searchParams.get('tool')).toBe('builtin:http_check');
  const address = new URL(page.url());
  expect(address.searchParams.get('q')).toBe('http');
  expect(address.searchParams.get('filter')).toBe('confirm');
  expect(address.hash).toBe('');
  expect(page.url()).not.toContain('token');

  await page.reload();
  await expect(consolePage.detail('http_check')).toBeVisible({ timeout: 15_000 });
  await expect(consolePage.filterInput).toHaveValue('http');
  await expect(consolePage.filterButton('Confirmation required')).toHaveAttribute('aria-pressed', 'true');
  await expect(consolePage.detail('http_check').getByLabel('url')).toHaveValue('http://127.0.0.1:9/draft');
});

test('a link naming a tool opens it; a link naming nothing valid opens the plain console', async ({ consolePage, page }) => {
  const origin = new URL(page.url()).origin;
  await page.goto(`${origin}/?tool=builtin%3Atime_now&kind=tool`);
  await expect(consolePage.detail('time_now')).toBeVisible({ timeout: 15_000 });
  await page.goto(`${origin}/?filter=everything&kind=widgets`);
  await expect(consolePage.count('total')).not.toBeEmpty({ timeout: 15_000 });
  await expect(consolePage.filterButton('All')).toHaveAttribute('aria-pressed', 'true');
});

test('typing writes the address once the query rests, and a reload right after the last keystroke still keeps it', async ({ consolePage, page }) => {
  await consolePage.filterInput.pressSequentially('note');
  await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('note');
  await consolePage.filterInput.press('Backspace');
  await page.reload();
  await expect(consolePage.filterInput).toHaveValue('not', { timeout: 15_000 });
});
