/** The registry dashboard: figures, tool states and filters, all from what the gateway returns. */
import { expect, test } from './fixtures';
import { BUILTIN } from '../support/builtins';

test('the header shows the registry figures: the builtin tools, those with no confirmation (the default one-click tools), those needing confirmation; a whitelist change updates them at once', async ({
  consolePage,
  page,
}) => {
  const summary = page.getByRole('banner').getByLabel('Registry summary');
  await expect(summary).toContainText(`Tools${BUILTIN.total}`);
  await expect(summary).toContainText(`No confirmation${BUILTIN.direct}`);
  await expect(summary).toContainText(`one-click here${BUILTIN.unlocked}`);
  await expect(summary).toContainText(`Need confirmation${BUILTIN.needConfirm}`);
  await expect(consolePage.count('total')).toHaveText(String(BUILTIN.total));
  await expect(consolePage.count('direct')).toHaveText(String(BUILTIN.direct));
  await expect(consolePage.count('unlocked')).toHaveText(String(BUILTIN.unlocked));
  await expect(consolePage.count('confirm')).toHaveText(String(BUILTIN.needConfirm));
  await expect(consolePage.count('generation')).toHaveText(/^\d+$/);

  // Whitelisting a tool unlocks it here; what needs confirmation does not change.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = consolePage.settingsDialog();
  await settings.getByRole('checkbox', { name: /note_add/ }).check();
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(settings).toBeHidden();
  await expect(consolePage.count('unlocked')).toHaveText(String(BUILTIN.unlocked + 1));
  await expect(consolePage.count('direct')).toHaveText(String(BUILTIN.direct));
  await expect(consolePage.count('confirm')).toHaveText(String(BUILTIN.needConfirm));
  await expect(consolePage.tool('note_add')).toContainText('One-click here');
});

test('by default the whitelisted tools are executable, the other tools without confirmation read-only and those needing confirmation locked', async ({ consolePage }) => {
  await expect(consolePage.toolCards).toHaveCount(BUILTIN.total);
  await expect(consolePage.toolsInState('executable')).toHaveCount(BUILTIN.unlocked);
  await expect(consolePage.toolsInState('read-only')).toHaveCount(BUILTIN.direct - BUILTIN.unlocked);
  await expect(consolePage.toolsInState('locked')).toHaveCount(BUILTIN.needConfirm);

  await expect(consolePage.tool('time_now')).toHaveAttribute('data-state', 'executable');
  await expect(consolePage.tool('local_status')).toHaveAttribute('data-state', 'executable');
  await expect(consolePage.tool('http_check')).toHaveAttribute('data-state', 'locked');
});

test('each tool card reads its risk, confirmation policy, what it does to data and what this console lets you do, in words', async ({ consolePage }) => {
  // A tool that writes data but is not whitelisted: the two badges say different things, and say which.
  const noteAdd = consolePage.tool('note_add');
  await expect(noteAdd).toContainText('Add note');
  await expect(noteAdd).toContainText('low risk');
  await expect(noteAdd).toContainText('No confirmation');
  await expect(noteAdd).toContainText('Writes data');
  await expect(noteAdd).toContainText('View only here');
  await expect(noteAdd).not.toContainText('Mutating');

  const httpCheck = consolePage.tool('http_check');
  await expect(httpCheck).toContainText('medium risk');
  await expect(httpCheck).toContainText('Needs confirmation');
  await expect(httpCheck).toContainText('Locked: confirm to run');
  await expect(httpCheck).not.toContainText('Writes data');

  await expect(consolePage.tool('time_now')).toContainText('One-click here');
  await expect(consolePage.tool('todo_list')).not.toContainText('Writes data');
});

test('a click anywhere on a card selects it, its provider and tags line too', async ({ consolePage }) => {
  // force: the card's name button is stretched over the card and takes the click, which Playwright
  // would otherwise wait for the line itself to receive; the mouse still clicks where the line is.
  await consolePage.tool('todo_list').locator('.tool-card__meta').click({ force: true });
  await expect(consolePage.detail('todo_list')).toBeVisible();
  await consolePage.tool('note_search').locator('.tool-card__description').click({ force: true });
  await expect(consolePage.detail('note_search')).toBeVisible();
});

test('read-only and locked tools look different, not only in colour', async ({ consolePage }) => {
  // Each state has its own edge style and icon as well as its own colour and label.
  await expect(consolePage.tool('time_now')).toHaveCSS('border-left-style', 'solid');
  await expect(consolePage.tool('todo_list')).toHaveCSS('border-left-style', 'dashed');
  await expect(consolePage.tool('http_check')).toHaveCSS('border-left-style', 'double');
  await expect(consolePage.tool('todo_list').locator('.state-badge svg')).toHaveClass(/icon--eye/);
  await expect(consolePage.tool('http_check').locator('.state-badge svg')).toHaveClass(/icon--lock/);
});

test('the risk filters show low-risk tools, tools needing confirmation, or all', async ({ consolePage }) => {
  await expect(consolePage.filterButton('All')).toHaveAttribute('aria-pressed', 'true');

  await consolePage.filterButton('Low risk').click();
  await expect(consolePage.filterButton('Low risk')).toHaveAttribute('aria-pressed', 'true');
  await expect(consolePage.filterButton('All')).toHaveAttribute('aria-pressed', 'false');
  await expect(consolePage.toolCards).toHaveCount(BUILTIN.lowRisk);
  await expect(consolePage.tool('http_check')).toHaveCount(0);

  await consolePage.filterButton('Confirmation required').click();
  await expect(consolePage.toolCards).toHaveCount(BUILTIN.needConfirm);
  await expect.poll(() => consolePage.visibleToolNames()).toEqual(['http_check']);

  await consolePage.filterButton('All').click();
  await expect(consolePage.toolCards).toHaveCount(BUILTIN.total);
});

test('the text filter matches names, descriptions and tags, and says when nothing matches', async ({ consolePage, page }) => {
  await consolePage.filterInput.fill('todo');
  await expect(consolePage.toolCards).toHaveCount(2);
  await expect.poll(() => consolePage.visibleToolNames()).toEqual(['todo_add', 'todo_list']);

  // Combined with a risk filter, the two narrow each other.
  await consolePage.filterButton('Confirmation required').click();
  await expect(consolePage.toolCards).toHaveCount(0);
  await expect(page.getByText('No capability matches “todo” under the Confirmation required filter.')).toBeVisible();

  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(consolePage.toolCards).toHaveCount(BUILTIN.total);
  await expect(consolePage.filterInput).toHaveValue('');
  await expect(consolePage.filterButton('All')).toHaveAttribute('aria-pressed', 'true');
});
