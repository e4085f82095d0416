/** The search box: lexical-v1 over the whole catalog from the gateway, ranked, highlighted, faceted. */
import { expect, test } from './fixtures';
import { BUILTIN } from '../support/builtins';
import { writeSkill } from './skills';

test('typing "note search" puts note_search first and marks the matched terms', async ({ consolePage, page }) => {
  await consolePage.filterInput.pressSequentially('note search');
  await expect(page.locator('[data-results-for="note search"]')).toBeVisible();
  const names = await consolePage.visibleToolNames();
  expect(names[0]).toBe('note_search');
  expect(names).toContain('note_add');
  expect(names).not.toContain('time_now');

  // Both terms are marked in the name, the field that ranked it first; the description's matches too.
  const first = consolePage.tool('note_search');
  await expect(first.getByRole('heading').locator('mark')).toHaveText(['note', 'search']);
  await expect(first.locator('.tool-card__description mark').first()).toBeVisible();
  await expect(page.getByText('matches for “note search”')).toBeVisible();
});

test('a nonsense query says plainly that nothing matched lexically, and Clear search brings the list back', async ({ consolePage, page }) => {
  await consolePage.filterInput.fill('qwxzzy');
  await expect(consolePage.capabilities).toContainText('No lexical match for “qwxzzy”.');
  await expect(consolePage.toolCards).toHaveCount(0);

  await page.getByRole('button', { name: 'Clear search' }).click();
  await expect(consolePage.filterInput).toHaveValue('');
  await expect(consolePage.toolCards).toHaveCount(BUILTIN.total);
});

test('each keystroke asks the gateway at once, and the list answers the last query', async ({ consolePage, page }) => {
  const searches: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/catalog/search') searches.push(url.searchParams.get('query') ?? '');
  });
  await consolePage.filterInput.pressSequentially('todo', { delay: 20 });
  await expect(page.locator('[data-results-for="todo"]')).toBeVisible();
  // No debounce: the keystrokes before the last asked too (superseded answers are dropped or aborted).
  expect(searches.length).toBeGreaterThan(1);
  expect(searches.at(-1)).toBe('todo');
  await expect.poll(() => consolePage.visibleToolNames()).toEqual(['todo_add', 'todo_list']);
});

test('the list says at once that a search is on its way; the icon spins only once the answer is slow (200 ms)', async ({ consolePage, page }) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  // The real gateway answers a search within a few ms here, and nothing makes it slow on purpose:
  // page.route only holds the request until released, then lets it go to the gateway (route.continue),
  // which answers it. Nothing answers in the gateway's place.
  await page.route('**/catalog/search?*', async (route) => {
    await held;
    await route.continue();
  });
  // When the list first said it was busy and when the icon first spun, read in the page as they happen.
  await page.evaluate(`
    window.seen = {};
    new MutationObserver(() => {
      if (seen.busyAt === undefined && document.querySelector('.capability-list[aria-busy="true"]')) seen.busyAt = performance.now();
      if (seen.spinAt === undefined && document.querySelector('.filter-bar__search-icon.spin')) seen.spinAt = performance.now();
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-busy', 'class'] });
  `);
  await consolePage.filterInput.fill('todo');
  const icon = page.locator('.filter-bar__search-icon');
  await expect(icon).toHaveClass(/\bspin\b/);
  expect(await page.evaluate<number>('seen.spinAt - seen.busyAt')).toBeGreaterThanOrEqual(150);

  release();
  await expect(page.locator('[data-results-for="todo"]')).toBeVisible();
  await expect(icon).not.toHaveClass(/\bspin\b/);
  await expect(page.locator('.capability-list')).toHaveAttribute('aria-busy', 'false');
});

const skillsTest = test.extend({
  serveArgs: async ({ skillsDir }, use) => {
    await writeSkill(skillsDir, 'release-checklist', { description: 'Steps before a release: changelog, tag, notes.', tags: ['release', 'ops'] });
    await writeSkill(skillsDir, 'incident-triage', { description: 'Triage a production incident and page the owner.', tags: ['incident'] });
    await use(['--skills-dir', skillsDir]);
  },
});

skillsTest('skills are listed with tools, with a kind badge; kind and provider facets narrow the list and show counts', async ({ consolePage, page }) => {
  await expect(consolePage.toolCards).toHaveCount(BUILTIN.total + 2);
  const skill = consolePage.tool('release-checklist');
  await expect(skill).toHaveAttribute('data-state', 'skill');
  await expect(skill).toContainText('Skill');
  await expect(skill).toContainText('Inspect only');
  // Skills do not change the foundation's tool figures.
  await expect(consolePage.count('total')).toHaveText(String(BUILTIN.total));
  await expect(consolePage.count('skills')).toHaveText('2');

  const kinds = page.getByRole('group', { name: 'Filter by kind' });
  await expect(kinds.getByRole('button', { name: `Tools ${BUILTIN.total}` })).toBeVisible();
  await kinds.getByRole('button', { name: 'Skills 2' }).click();
  await expect.poll(() => consolePage.visibleToolNames()).toEqual(['incident-triage', 'release-checklist']);

  await kinds.getByRole('button', { name: /^All kinds/ }).click();
  const provider = page.getByLabel('Provider');
  await expect(provider.locator('option')).toHaveText([`All providers (${BUILTIN.total + 2})`, `builtin (${BUILTIN.total})`, 'skills (2)']);
  await provider.selectOption('builtin');
  await expect(consolePage.toolCards).toHaveCount(BUILTIN.total);

  // Facet counts follow the search: "checklist" matches one skill and no builtin tool.
  await consolePage.filterInput.fill('checklist');
  await expect(provider.locator('option')).toHaveText(['All providers (1)', 'builtin (0)', 'skills (1)']);
  await expect(page.getByText('No capability matches “checklist” under the All filter with the chosen kind and provider.')).toBeVisible();
  await provider.selectOption('');
  await expect.poll(() => consolePage.visibleToolNames()).toEqual(['release-checklist']);
  await expect(consolePage.tool('release-checklist').getByRole('heading').locator('mark')).toHaveText(['checklist']);
});

test('arrow keys move through the results from the search box, and Enter selects', async ({ consolePage, page }) => {
  await consolePage.filterInput.fill('note');
  await expect(page.locator('[data-results-for="note"]')).toBeVisible();
  await consolePage.filterInput.press('ArrowDown');
  const names = await consolePage.visibleToolNames();
  await expect(page.getByRole('button', { name: names[0], exact: true })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('button', { name: names[1], exact: true })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(consolePage.detail(names[1]!)).toBeVisible();
  // Up from the first row goes back to the search box.
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowUp');
  await expect(consolePage.filterInput).toBeFocused();
});
