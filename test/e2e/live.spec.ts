/**
 * The console follows the catalog live (server-sent events, no polling, no reload): skill files
 * written while the page is open, providers switched, from this page or another client.
 */
import type { Page } from '@playwright/test';
import type { CatalogView } from '../../shared/discovery';
import { startCapstan } from './capstanServer';
import { ConsolePage } from './consolePage';
import { expect, GATEWAY_STOPPED, test } from './fixtures';
import { BUILTIN } from '../support/builtins';
import { gatewayApi } from './gatewayApi';
import { writeSkill, writeSkillFile } from './skills';

const liveTest = test.extend({
  serveArgs: async ({ skillsDir }, use) => use(['--skills-dir', skillsDir]),
});

/** Marks the page, so a test can tell an update in place from a reload (which would lose the mark). */
const markPage = (page: Page) => page.evaluate('window.__capstanNoReload = true');
const stillSamePage = (page: Page) => page.evaluate<boolean>('window.__capstanNoReload === true');

liveTest('a bad SKILL.md written while the page is open shows up in Diagnostics at once', async ({ consolePage, page, skillsDir }) => {
  await expect(consolePage.count('diagnostics')).toHaveText('0');
  await markPage(page);

  const path = await writeSkillFile(skillsDir, 'no-description', '---\nname: no-description\ntags: [ops]\n---\n# Body\n');

  await expect(consolePage.count('diagnostics')).toHaveText('1');
  await page.getByRole('button', { name: /^Diagnostics/ }).click();
  const panel = page.getByRole('dialog', { name: 'Diagnostics' });
  const diagnostic = panel.getByRole('listitem');
  await expect(diagnostic).toContainText('"description" is required');
  await expect(diagnostic).toContainText(path);
  await expect(diagnostic).toContainText('skills');
  await expect(diagnostic).toContainText(/Line\s*2/);
  await expect(diagnostic).toContainText('no-description');
  // The lines around it, read from the file when asked for.
  await diagnostic.getByText('Lines around line 2').click();
  await expect(diagnostic.locator('[data-line="2"]')).toHaveText(/2\s*name: no-description/);
  // The line after the marked one starts its own line below it, in view rather than pushed aside.
  const next = diagnostic.locator('[data-line="3"]');
  await expect(next).toBeInViewport();
  const at = await diagnostic.locator('[data-line="2"]').boundingBox();
  const after = await next.boundingBox();
  expect(at && after && after.y >= at.y + at.height - 1 && Math.abs(after.x - at.x) < 1, `line 2 ${JSON.stringify(at)}, line 3 ${JSON.stringify(after)}`).toBe(true);
  // The broken file is left out of the catalog.
  await expect(consolePage.tool('no-description')).toHaveCount(0);

  // Fixing it while the panel is open clears the diagnostic and brings the skill in.
  await writeSkill(skillsDir, 'no-description', { description: 'Now it has one.' });
  await expect(panel).toContainText('No diagnostics');
  await expect(consolePage.count('diagnostics')).toHaveText('0');
  await page.keyboard.press('Escape');
  await expect(consolePage.tool('no-description')).toBeVisible();
  expect(await stillSamePage(page)).toBe(true);
});

liveTest('a new valid skill appears in the list, the figures and a running search without a reload', async ({ consolePage, page, skillsDir }) => {
  await expect(consolePage.count('skills')).toHaveText('0');
  const generation = Number(await consolePage.count('generation').textContent());
  await consolePage.filterInput.fill('rollback');
  await expect(consolePage.capabilities).toContainText('No lexical match');
  await markPage(page);

  await writeSkill(skillsDir, 'rollback-plan', { description: 'How to roll back a bad deploy.', tags: ['rollback', 'deploy'] });

  await expect(consolePage.tool('rollback-plan')).toBeVisible();
  await expect(consolePage.tool('rollback-plan')).toHaveAttribute('data-state', 'skill');
  await expect(consolePage.count('skills')).toHaveText('1');
  await expect(consolePage.count('total')).toHaveText(String(BUILTIN.total));
  expect(Number(await consolePage.count('generation').textContent())).toBeGreaterThan(generation);
  expect(await stillSamePage(page)).toBe(true);
});

test('a provider switched by another client updates this page too', async ({ consolePage, page, capstan }) => {
  await markPage(page);
  const response = await fetch(`${capstan.origin}/providers/enabled`, {
    method: 'POST',
    headers: { authorization: `Bearer ${capstan.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'builtin', enabled: false }),
  });
  expect(response.ok).toBe(true);
  await expect(consolePage.count('total')).toHaveText('0');
  await expect(consolePage.toolCards).toHaveCount(0);
  expect(await stillSamePage(page)).toBe(true);
});

liveTest('after the gateway restarts, the event stream reconnects and the page catches up on what changed meanwhile', async ({
  consolePage,
  page,
  capstan,
  dataDir,
  skillsDir,
  pageProblems,
}) => {
  pageProblems.allow(GATEWAY_STOPPED);
  await expect(consolePage.count('skills')).toHaveText('0');
  await markPage(page);

  const live = page.locator('[data-live]');
  await expect(live).toHaveText('Live');
  // Generations grow within one process: revoking and restoring a tool a few times takes this one
  // above where the next process will start, so the counter goes back after the restart.
  for (const revoked of [true, false, true, false, true, false]) {
    const answer = await fetch(`${capstan.origin}/catalog/revoked`, {
      method: 'POST',
      headers: { authorization: `Bearer ${capstan.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'builtin:note_search', revoked }),
    });
    expect(answer.status).toBe(200);
  }
  const generation = page.locator('.counts__item--generation');
  // The page has caught up with all of it before the gateway goes (no read of its left in flight).
  const { catalogGeneration } = (await (await fetch(`${capstan.origin}/catalog`, { headers: { authorization: `Bearer ${capstan.token}` } })).json()) as { catalogGeneration: number };
  expect(catalogGeneration).toBeGreaterThan(6);
  await expect(consolePage.count('generation')).toHaveText(String(catalogGeneration));
  await capstan.stop();
  // The operator is told the page may be out of date.
  await expect(live).toHaveText('Reconnecting…');
  // The longer word takes no room from the figures: the generation still ends before the buttons.
  // The longer word takes no room from the figures: at each width where the header changes, the
  // generation still ends before the buttons begin.
  for (const width of [1280, 1440, 1535, 1536, 1699, 1700]) {
    await page.setViewportSize({ width, height: 800 });
    const shownGeneration = await generation.boundingBox();
    const nav = await page.getByRole('navigation', { name: 'Console' }).boundingBox();
    expect(shownGeneration && nav && shownGeneration.x + shownGeneration.width <= nav.x, `at ${width} px`).toBe(true);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  // Written while nobody is watching: no event will ever announce it.
  await writeSkill(skillsDir, 'written-while-down', { description: 'Appears only if the console catches up after reconnecting.' });
  const restarted = await startCapstan(dataDir, {
    args: ['--skills-dir', skillsDir],
    port: Number(new URL(capstan.origin).port),
    token: capstan.token,
  });
  try {
    await expect(consolePage.tool('written-while-down')).toBeVisible({ timeout: 15_000 });
    await expect(live).toHaveText('Live');
    await expect(consolePage.count('skills')).toHaveText('1');
    // The counter went back: the header says why rather than leave the operator guessing.
    await expect(generation).toHaveAttribute('title', /went back from \d+ because the gateway restarted/);
    // And the new stream carries live events again.
    await writeSkill(skillsDir, 'written-after', { description: 'Announced by an event on the new stream.' });
    await expect(consolePage.tool('written-after')).toBeVisible();
    expect(await stillSamePage(page)).toBe(true);
  } finally {
    await restarted.stop();
  }
});

/**
 * Records, in the page, the text of every `GET /events` response as it arrives: the page's own
 * stream, read through a tee so the console reads it as before. The test can then wait for an
 * event to have reached the page, which otherwise leaves no sign until the page acts on it.
 * A string: it runs in the page, and the tests' TypeScript project has no DOM types.
 */
const RECORD_EVENT_STREAM = `(() => {
  window.__capstanEventText = '';
  const fetchBefore = window.fetch;
  window.fetch = async (...args) => {
    const response = await fetchBefore(...args);
    const url = new URL(args[0] instanceof Request ? args[0].url : String(args[0]), location.href);
    if (url.pathname !== '/events' || !response.body) return response;
    const [forPage, forTest] = response.body.tee();
    Object.defineProperty(response, 'body', { value: forPage });
    (async () => {
      const reader = forTest.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ done: true }));
        if (done) return;
        window.__capstanEventText += value;
      }
    })();
    return response;
  };
})()`;

test('a change made after the gateway answered the first catalog read, heard before the answer arrived, still shows', async ({ page, capstan }) => {
  // As an MCP server listing its tools while a slow page's first read is on its way: the answer is
  // held until the change's event has reached the page, so it arrives older than what the page heard.
  // page.route only delays the real gateway's own answer (route.fetch); nothing is faked, and no
  // other way can hold one read back while the event stream stays live.
  await page.addInitScript({ content: RECORD_EVENT_STREAM });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let answered!: () => void;
  const answer = new Promise<void>((resolve) => (answered = resolve));
  // Every read the page makes: whether the gateway answered it after the change, and how.
  let changed = false;
  const reads: { afterChange: boolean; status: number }[] = [];
  await page.route('**/catalog', async (route) => {
    const response = await route.fetch();
    reads.push({ afterChange: changed, status: response.status() });
    answered();
    await released;
    await route.fulfill({ response });
  });
  const streamOpen = page.waitForResponse('**/events');
  const consolePage = new ConsolePage(page);
  const opening = consolePage.open(capstan.consoleUrl);
  await answer;
  await streamOpen;
  const generation = (await gatewayApi<CatalogView>(capstan, 'POST', '/catalog/revoked', { id: 'builtin:time_now', revoked: true })).catalogGeneration;
  changed = true;
  // The event leaves no sign on the page while the answer is held: wait until its text has reached
  // the page's stream, so the answer is released after it, in the order this test is about.
  const heard = () => page.evaluate<string>('window.__capstanEventText');
  await expect.poll(heard, { timeout: 10_000 }).toContain(`"catalogGeneration":${generation}`);
  expect(await heard()).toContain('"reason":"revoked"');
  // So far the page has only the first read, answered before the change and still held.
  expect(reads).toEqual([{ afterChange: false, status: 200 }]);
  release();
  await opening;
  await expect(consolePage.count('generation')).toHaveText(String(generation));
  await expect(consolePage.count('revoked')).toHaveText('1');
  // The page read again once its stream had opened; the gateway had nothing newer to tell it (304):
  // the change came from the event it heard, not from a later read.
  expect(reads[0]).toEqual({ afterChange: false, status: 200 });
  for (const read of reads.slice(1)) expect(read).toEqual({ afterChange: true, status: 304 });
});
