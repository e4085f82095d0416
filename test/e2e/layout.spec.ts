/** The console at the sizes and themes operators use it in, and by keyboard alone. */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { BUILTIN } from '../support/builtins';

// Evaluated as strings: these run in the page, and the tests' TypeScript project has no DOM types.
const hasHorizontalScroll = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth > document.documentElement.clientWidth');

const bodyBackground = (page: Page) => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');

/** Relative luminance of an `rgb(r, g, b)` colour, 0 (black) to 1 (white). */
function luminance(rgb: string): number {
  const [r = 0, g = 0, b = 0] = (rgb.match(/\d+(\.\d+)?/g) ?? []).map(Number).map((channel) => {
    const c = channel / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

test('at 1280×800 the tool list and the selected tool sit side by side', async ({ consolePage, page }) => {
  await (await consolePage.select('time_now')).getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');
  const list = await page.getByRole('region', { name: 'Capabilities' }).boundingBox();
  const detail = await consolePage.detail('time_now').boundingBox();
  expect(list && detail && detail.x >= list.x + list.width - 1).toBe(true);
  expect(await hasHorizontalScroll(page)).toBe(false);
});

test('at 900 px wide the layout stacks and nothing scrolls sideways', async ({ consolePage, page }) => {
  await page.setViewportSize({ width: 900, height: 800 });
  // Long JSON and requestIds are the likeliest to overflow; run a tool that returns plenty of both.
  await (await consolePage.select('local_status')).getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');
  await consolePage.select('http_check');
  // Below the whole list, the chosen tool's panel is brought into view.
  await expect(consolePage.detail('http_check').getByRole('heading', { name: 'http_check' })).toBeInViewport();

  const list = await page.getByRole('region', { name: 'Capabilities' }).boundingBox();
  const detail = await consolePage.detail('http_check').boundingBox();
  expect(list && detail && detail.y >= list.y + list.height - 1).toBe(true);
  expect(await hasHorizontalScroll(page)).toBe(false);
  await page.evaluate('window.scrollTo(0, 0)');
  await expect(page.getByRole('button', { name: 'Settings', exact: true })).toBeInViewport();
});

test('at 1440×900 every builtin capability is in view; at 1024 px the header keeps one line', async ({ consolePage, page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await expect(consolePage.toolCards).toHaveCount(BUILTIN.total);
  for (const card of await consolePage.toolCards.all()) await expect(card).toBeInViewport({ ratio: 1 });

  await page.setViewportSize({ width: 1024, height: 768 });
  // One line: the header's height (56 px) rather than two rows of figures or buttons (over 80).
  const header = await page.getByRole('banner').boundingBox();
  expect(header?.height).toBeLessThan(64);
  // ...and its parts do not run into each other: the last figure shown ends before the buttons begin.
  const lastFigure = await page.getByLabel('Registry summary').locator('.counts__item:visible').last().boundingBox();
  const nav = await page.getByRole('navigation', { name: 'Console' }).boundingBox();
  expect(lastFigure && nav && lastFigure.x + lastFigure.width <= nav.x).toBe(true);
  expect(await hasHorizontalScroll(page)).toBe(false);
  // Below 1440 px the header's buttons show icons; they keep their names.
  await expect(page.getByRole('button', { name: 'Providers', exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Settings', exact: true })).toBeVisible();
});

test('the theme follows the OS until the operator picks one, which is remembered', async ({ consolePage, page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(consolePage.count('total')).toHaveText(String(BUILTIN.total));
  const themes = page.getByRole('group', { name: 'Colour theme' });
  await expect(themes.getByRole('button', { name: 'System theme' })).toHaveAttribute('aria-pressed', 'true');
  const light = await bodyBackground(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  // The page follows the OS on matchMedia's change event, a moment after the switch.
  await expect.poll(() => bodyBackground(page)).not.toBe(light);
  const dark = await bodyBackground(page);
  expect(luminance(light)).toBeGreaterThan(0.8);
  expect(luminance(dark)).toBeLessThan(0.05);

  // Light, chosen while the OS is dark, holds after a reload.
  await themes.getByRole('button', { name: 'Light theme' }).click();
  await expect.poll(() => bodyBackground(page)).toBe(light);
  await page.reload();
  await expect(themes.getByRole('button', { name: 'Light theme' })).toHaveAttribute('aria-pressed', 'true');
  expect(await bodyBackground(page)).toBe(light);
  await themes.getByRole('button', { name: 'Dark theme' }).click();
  await page.emulateMedia({ colorScheme: 'light' });
  await expect.poll(() => bodyBackground(page)).toBe(dark);
  await themes.getByRole('button', { name: 'System theme' }).click();
  await expect.poll(() => bodyBackground(page)).toBe(light);
});

test('an operator can filter, select and run a tool with the keyboard alone', async ({ consolePage, page }) => {
  // The first Tab offers the skip link, which jumps past the header.
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to the console' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main')).toBeFocused();
  // `/` goes to the search from anywhere that is not a text field.
  await page.keyboard.press('/');
  await expect(consolePage.filterInput).toBeFocused();
  await expect(consolePage.filterInput).toHaveValue('');
  await page.keyboard.type('clock');
  await expect(consolePage.toolCards).toHaveCount(1);

  // Tab from the filter to the first (and only) tool, open it, then on to its form.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'time_now', exact: true })).toBeFocused();
  await page.keyboard.press('Enter');
  const detail = consolePage.detail('time_now');
  await expect(detail).toBeVisible();
  await detail.getByLabel('timezone').focus();
  // In a text field `/` is only a character.
  await page.keyboard.type('UTC/');
  await expect(detail.getByLabel('timezone')).toBeFocused();
  await expect(detail.getByLabel('timezone')).toHaveValue('UTC/');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Tab');
  const execute = detail.getByRole('button', { name: 'Execute' });
  await expect(execute).toBeFocused();
  await expect(execute, 'a visible focus ring').not.toHaveCSS('outline-style', 'none');
  await page.keyboard.press('Enter');
  // The answer is where the keyboard is: the new run takes the focus (issue 22, results where you look).
  await expect(consolePage.latestExecution).toContainText('ok');
  await expect(consolePage.latestExecution).toBeFocused();
});
