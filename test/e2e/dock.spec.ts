/** The activity dock (Tasks and Ledger) at the sizes and themes operators use, and by keyboard alone. */
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { gatewayApi } from './gatewayApi';

const screenshotFile = (name: string) => fileURLToPath(new URL(`../../build/screenshot-${name}.png`, import.meta.url));

// Evaluated as strings: these run in the page, and the tests' TypeScript project has no DOM types.
const hasHorizontalScroll = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth > document.documentElement.clientWidth');
const dockBackground = (page: Page) => page.evaluate<string>("getComputedStyle(document.querySelector('.dock')).backgroundColor");

test('at 1280×800 the dock sits under the selected tool, beside the full-height registry; Maximize gives it the side pane', async ({ consolePage, page }) => {
  await consolePage.select('time_now');
  const registry = await consolePage.capabilities.boundingBox();
  const dock = page.getByRole('region', { name: 'Activity' });
  const collapsed = await dock.boundingBox();
  // Collapsed, it is a bar of tabs at the bottom of the side pane.
  expect(collapsed && registry && collapsed.x >= registry.x + registry.width - 1).toBe(true);
  expect(collapsed && collapsed.height < 60 && collapsed.y + collapsed.height >= 799).toBe(true);
  await expect(page.getByRole('tabpanel')).toHaveCount(0);

  await consolePage.openTasks();
  await expect(consolePage.detail('time_now')).toBeVisible();
  await dock.getByRole('button', { name: 'Maximize' }).click();
  await expect(consolePage.detail('time_now')).toBeHidden();
  await expect(consolePage.capabilities).toBeVisible();
  // Maximized, the open view fills the side pane down to the window's bottom edge.
  const panel = await page.getByRole('tabpanel').boundingBox();
  expect(panel && panel.height > 600 && panel.y + panel.height >= 799).toBe(true);
  await expect(page.getByRole('tabpanel')).toContainText('Start task');
  await dock.getByRole('button', { name: 'Restore' }).click();
  await expect(consolePage.detail('time_now')).toBeVisible();
  await dock.getByRole('button', { name: 'Collapse' }).click();
  await expect(page.getByRole('tabpanel')).toHaveCount(0);
  await expect(dock.getByRole('button', { name: 'Expand' })).toHaveAttribute('aria-expanded', 'false');
  expect(await hasHorizontalScroll(page)).toBe(false);
});

test('at 900 px wide the dock is a sheet on the bottom edge, and both views fit without sideways scrolling', async ({ consolePage, page, capstan }) => {
  await page.setViewportSize({ width: 900, height: 800 });
  await gatewayApi(capstan, 'POST', '/tasks', { action: 'start', title: 'printer offline on floor 3 — a long title to wrap in a narrow window' });
  await gatewayApi(capstan, 'POST', '/tools/call', { tool: 'local_status' });
  await gatewayApi(capstan, 'POST', '/tasks', { action: 'follow_up', title: 'tell the users', requiresSuccess: true });

  // The tabs stay reachable wherever the page is scrolled.
  await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
  await expect(consolePage.dockTab('Tasks')).toBeInViewport();

  const tasks = await consolePage.openTasks();
  await expect(consolePage.activeTask()).toContainText('printer offline on floor 3');
  await expect(tasks.getByRole('button', { name: 'Follow-up…' })).toBeInViewport();
  expect(await hasHorizontalScroll(page)).toBe(false);

  const ledger = await consolePage.openLedger();
  await expect(consolePage.ledgerRows().first()).toBeVisible();
  await expect(ledger.getByRole('button', { name: 'Verify chain' })).toBeInViewport();
  const grid = await ledger.getByRole('grid').boundingBox();
  expect(grid && grid.x + grid.width <= 900).toBe(true);
  expect(await hasHorizontalScroll(page)).toBe(false);
});

test('at 1024×768 and 900 px every dock tab and the dock’s controls show whole, none clipped by the bar', async ({ consolePage, page }) => {
  for (const width of [1024, 900]) {
    await page.setViewportSize({ width, height: 768 });
    await consolePage.openLedger();
    const bar = await page.locator('.dock__bar').boundingBox();
    const controls = [...(await page.getByRole('tablist', { name: 'Activity views' }).getByRole('tab').all()), page.locator('.dock__controls').getByRole('button', { name: /^Collapse/ })];
    expect(controls).toHaveLength(5);
    for (const control of controls) {
      const box = await control.boundingBox();
      const name = await control.textContent();
      expect(box && bar && box.x >= bar.x && box.x + box.width <= bar.x + bar.width + 0.5, `${name} at ${width} px`).toBe(true);
      // Whole, not cut by its own overflow: its content fits its box.
      expect(await control.evaluate((element: { scrollWidth: number; clientWidth: number }) => element.scrollWidth <= element.clientWidth), `${name} at ${width} px`).toBe(true);
    }
    expect(await hasHorizontalScroll(page)).toBe(false);
  }
});

test('by keyboard alone: arrows move between the dock tabs, a task is started from its dialog, the ledger grid is walked', async ({ consolePage, page }) => {
  await consolePage.dockTab('Tasks').focus();
  await page.keyboard.press('Enter');
  const tasksTab = consolePage.dockTab('Tasks');
  await expect(tasksTab).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowRight');
  await expect(consolePage.dockTab('Ledger')).toBeFocused();
  await expect(consolePage.dockTab('Ledger')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowLeft');
  await expect(tasksTab).toBeFocused();
  await expect(tasksTab, 'a visible focus ring').not.toHaveCSS('outline-style', 'none');

  // Into the panel: the first control is Start task….
  const panel = page.getByRole('tabpanel', { name: /^Tasks/ });
  const start = panel.getByRole('button', { name: 'Start task…' });
  await start.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Start a task' });
  await expect(dialog.getByLabel('Title')).toBeFocused();
  await page.keyboard.type('printer offline on floor 3');
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(consolePage.activeTask().getByRole('heading', { name: 'printer offline on floor 3' })).toBeVisible();

  // End reaches the last tab, Agent calls; one step back is Approvals, two the Ledger.
  await tasksTab.focus();
  await page.keyboard.press('End');
  await expect(page.getByRole('tabpanel', { name: 'Agent calls' })).toBeVisible();
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('tabpanel', { name: /^Approvals/ })).toBeVisible();
  await page.keyboard.press('ArrowLeft');
  const ledger = page.getByRole('tabpanel', { name: /^Ledger/ });
  await expect(ledger).toBeVisible();
  const grid = ledger.getByRole('grid');
  await grid.focus();
  await page.keyboard.press('ArrowDown');
  await expect(ledger.locator('[role="row"][aria-selected="true"]')).toHaveCount(1);
  await page.keyboard.press('End');
  const last = ledger.locator('[role="row"][aria-selected="true"]');
  await expect(last).toHaveAttribute('data-seq', '1');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog', { name: 'Ledger entry #1' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(grid).toBeFocused();
});

test('the dock follows the dark colour scheme', async ({ consolePage, page }) => {
  await consolePage.openTasks();
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await dockBackground(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  // The page follows the OS on matchMedia's change event, a moment after the switch.
  await expect.poll(() => dockBackground(page)).not.toBe(light);
});

// For the README, like the console screenshot in execute.spec.ts: written to build/. Tagged
// @screenshot, it runs only under `npm run screenshot` (see playwright.config.ts).
test('screenshot of the Tasks and Ledger views after a superseded task (for the README)', { tag: '@screenshot' }, async ({ consolePage, page, capstan }) => {
  await gatewayApi(capstan, 'POST', '/tasks', { action: 'start', title: 'printer offline on floor 3', input: 'Users on floor 3 cannot print.' });
  await gatewayApi(capstan, 'POST', '/tools/call', { tool: 'local_status' });
  await gatewayApi(capstan, 'POST', '/tasks', { action: 'steer', text: 'check the switch port first' });
  await gatewayApi(capstan, 'POST', '/tasks', { action: 'supersede', title: 'replace the floor 3 printer' });
  await gatewayApi(capstan, 'POST', '/tasks', { action: 'follow_up', title: 'tell floor 3 it works again', requiresSuccess: true });
  await (await consolePage.select('time_now')).getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');
  await consolePage.openTasks();
  await page.getByRole('region', { name: 'Activity' }).getByRole('button', { name: 'Maximize' }).click();
  await expect(consolePage.activeTask()).toContainText('replace the floor 3 printer');
  await page.screenshot({ path: screenshotFile('tasks') });
  await consolePage.openLedger();
  await expect(consolePage.ledgerRows().first()).toBeVisible();
  await page.screenshot({ path: screenshotFile('ledger') });
});
