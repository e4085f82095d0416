/**
 * axe-core over every view of the console, in the light theme and in the dark one: the registry,
 * a tool's and a skill's detail with a run in Recent executions, the review dialog, the inspect
 * drawer, Settings (every tab), Providers, Diagnostics, and the dock's Tasks (with an agent's
 * sessions grouped, its ended one unfolded), Ledger and Approvals (empty, with an agent's call waiting and
 * the header's indicator, with an approved call's outcome). One walk in one page, so it
 * costs one gateway, not thirty. The findings of the whole walk are collected, so a failure lists
 * every view's violations at once.
 */
import type { Page } from '@playwright/test';
import axe, { type AxeResults, type RunOptions } from 'axe-core';
import { expect, test } from './fixtures';
import { gatewayApi } from './gatewayApi';
import { writeSkill, writeSkillFile } from './skills';

const a11yTest = test.extend({
  serveArgs: async ({ skillsDir }, use) => {
    await writeSkill(skillsDir, 'release-checklist', { description: 'Steps before a release: changelog, tag, notes.', tags: ['release'] });
    // A file without a description, so Diagnostics has an entry to show.
    await writeSkillFile(skillsDir, 'broken', '---\nname: broken\n---\nNo description.\n');
    await use(['--skills-dir', skillsDir]);
  },
});

/** The rules whose outcome depends on colours, the only thing that differs between the themes. */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/** Where each view lives: after the whole page is checked once, a view's check covers only its own part, which keeps the walk short. */
const DETAIL = '.detail-pane';
const DIALOG = 'dialog[open]';
const DOCK = '.dock';

/**
 * Every violation in `scope` (the whole page if none) as it is now, one line each: theme, view,
 * rule, where. All rules in the light theme; then the colour rules again in the dark one. The
 * theme is set on <html> as the switch sets it (the switch itself is layout.spec's), since a modal
 * dialog makes the header inert. axe-core runs in the page itself, injected once through
 * evaluate (which the page's CSP does not govern); @axe-core/playwright's analyze() opens a fresh
 * page for every run, which made this walk several times slower.
 */
async function violations(page: Page, view: string, scope?: string): Promise<string[]> {
  const found: string[] = [];
  if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) await page.evaluate(axe.source);
  for (const theme of ['light', 'dark'] as const) {
    const options: RunOptions = { resultTypes: ['violations'], ...(theme === 'dark' ? { runOnly: { type: 'rule', values: COLOUR_RULES } } : {}) };
    const context = scope ? JSON.stringify(scope) : 'document';
    const result = await page.evaluate<AxeResults>(
      `document.documentElement.dataset.theme = '${theme}'; axe.run(${context}, ${JSON.stringify(options)})`,
    );
    for (const violation of result.violations)
      for (const node of violation.nodes) found.push(`${theme}, ${view}: ${violation.id} at ${node.target.join(' ')}: ${node.failureSummary ?? ''}`);
  }
  return found;
}

// A long walk: fifteen views, each analysed twice.
a11yTest.describe.configure({ timeout: 180_000 });

a11yTest('axe-core finds no violations in any view, in the light theme or the dark one', async ({ consolePage, page, capstan }) => {
  const found: string[] = [];
  const check = async (view: string, scope?: string) => found.push(...(await violations(page, view, scope)));
  await check('registry');
  const tool = await consolePage.select('time_now');
  await tool.getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');
  await check('tool detail with a run in Recent executions', DETAIL);

  await consolePage.select('note_add');
  await check('read-only tool detail', DETAIL);

  const locked = await consolePage.select('http_check');
  await locked.getByLabel('url').fill('http://127.0.0.1:9/');
  await locked.getByRole('button', { name: 'Review and run' }).click();
  await expect(consolePage.reviewDialog()).toBeVisible();
  await check('review dialog', DIALOG);
  await page.keyboard.press('Escape');
  await expect(consolePage.reviewDialog()).toBeHidden();

  const skill = await consolePage.select('release-checklist');
  await check('skill detail', DETAIL);
  await skill.getByRole('button', { name: 'Inspect', exact: true }).click();
  const drawer = page.getByRole('dialog', { name: 'Inspect release-checklist' });
  await expect(drawer).toBeVisible();
  await check('inspect drawer', DIALOG);
  await page.keyboard.press('Escape');
  await expect(drawer).toBeHidden();

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = consolePage.settingsDialog();
  await expect(settings).toBeVisible();
  for (const tab of await settings.getByRole('tab').all()) {
    await tab.click();
    await check(`Settings, ${await tab.textContent()}`, DIALOG);
  }
  await page.keyboard.press('Escape');
  await expect(settings).toBeHidden();

  for (const panel of ['Providers', 'Diagnostics']) {
    await page.getByRole('button', { name: new RegExp(`^${panel}`) }).click();
    const dialog = page.getByRole('dialog', { name: panel });
    await expect(dialog).toBeVisible();
    await check(panel, DIALOG);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
  }

  for (const view of ['Tasks', 'Ledger', 'Agent calls', 'Approvals']) {
    await page.getByRole('tablist', { name: 'Activity views' }).getByRole('tab', { name: new RegExp(`^${view}`) }).click();
    await expect(page.getByRole('tabpanel', { name: new RegExp(`^${view}`) })).toBeVisible();
    await check(`dock: ${view}`, DOCK);
  }

  // An agent's sessions, one active and one ended: the Tasks view lists its session groups, the ended one unfolded.
  const { token } = await gatewayApi<{ token: string }>(capstan, 'POST', '/agents', { name: 'a11y-bot' });
  const agent = { ...capstan, token };
  for (const suffix of ['open', 'done']) await gatewayApi(agent, 'POST', '/tasks', { action: 'start', sessionId: `agent:a11y-bot/${suffix}`, title: `a11y ${suffix}` });
  await gatewayApi(agent, 'POST', '/tasks', { action: 'finish', sessionId: 'agent:a11y-bot/done', message: 'done' });
  const tasks = await consolePage.openTasks();
  await tasks.getByRole('button', { name: '1 ended session' }).click();
  await expect(tasks.getByRole('list', { name: 'Ended sessions of agent:a11y-bot' }).getByRole('listitem')).toHaveCount(1);
  await check('dock: Tasks with agent sessions', DOCK);

  // An agent's call waiting for approval: the header's indicator, then the queue with its card;
  // approved, it fails (a destination config.json does not allow), and its outcome shows beside the decision.
  void fetch(`${capstan.origin}/tools/call`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool: 'http_check', arguments: { url: 'http://127.0.0.1:9/' } }),
  }).catch(() => undefined);
  const indicator = page.getByTestId('approvals-indicator');
  await expect(indicator).toBeVisible();
  await check('header with an approval waiting', 'header.app-header');
  await indicator.click();
  const approvals = page.getByRole('tabpanel', { name: /^Approvals/ });
  const card = approvals.getByRole('article', { name: /asks to run http_check/ });
  await expect(card).toBeFocused();
  await check('dock: Approvals with a call waiting', DOCK);
  await card.getByRole('button', { name: 'Approve and run' }).click();
  await expect(approvals.getByTestId('approval-outcome')).toHaveText('Failed: DESTINATION_REFUSED');
  await check('dock: Approvals with an outcome', DOCK);
  await page.getByRole('tablist', { name: 'Activity views' }).getByRole('tab', { name: 'Agent calls' }).click();
  await expect(page.getByRole('tabpanel', { name: 'Agent calls' }).getByTestId('agent-call').first()).toContainText('Failed: DESTINATION_REFUSED');
  await check('dock: Agent calls with a failed call', DOCK);

  // The Ledger with enough entries to scroll: the grid, its one focusable element, is what scrolls (scrollable-region-focusable).
  await Promise.all(Array.from({ length: 20 }, () => gatewayApi(capstan, 'POST', '/tools/call', { tool: 'time_now' })));
  const ledger = await consolePage.openLedger();
  const grid = ledger.getByRole('grid', { name: 'Ledger entries, newest first' });
  await expect.poll(() => grid.evaluate((element: { scrollHeight: number; clientHeight: number }) => element.scrollHeight > element.clientHeight)).toBe(true);
  await check('dock: Ledger that scrolls', DOCK);

  expect(found).toEqual([]);
});
