/** Thousands of capabilities: the list keeps only a window of rows in the DOM, and the keyboard still reaches every one. */
import { expect, test } from './fixtures';
import { writeSkill } from './skills';

const SKILLS = 1_500;
const name = (index: number) => `bulk-skill-${String(index).padStart(4, '0')}`;

const bulkTest = test.extend({
  serveArgs: async ({ skillsDir }, use) => {
    await Promise.all(
      Array.from({ length: SKILLS }, (_, index) =>
        writeSkill(skillsDir, name(index), {
          // Descriptions of different lengths, so rows differ in height and must be measured.
          description: `Bulk skill number ${index}. ${'Checks the printer queue and restarts it. '.repeat(1 + (index % 4))}`,
          tags: ['bulk', `group-${index % 10}`],
        }),
      ),
    );
    await use(['--skills-dir', skillsDir]);
  },
});

bulkTest('a catalog of 1,508 capabilities renders a window of rows; End, Home and the arrows walk it; the selection stays', async ({ consolePage, page }) => {
  await expect(consolePage.count('skills')).toHaveText(String(SKILLS));
  await expect(page.getByText(`Showing ${SKILLS + 8} of ${SKILLS + 8}`)).toBeVisible();
  const rendered = await consolePage.toolCards.count();
  expect(rendered).toBeGreaterThan(3);
  expect(rendered).toBeLessThan(40);

  // Select the first skill, then walk to the end of the list by keyboard.
  await consolePage.select(name(0));
  const first = page.getByRole('button', { name: name(0), exact: true });
  await first.focus();
  await page.keyboard.press('End');
  const last = page.getByRole('button', { name: name(SKILLS - 1), exact: true });
  await expect(last).toBeFocused();
  await expect(last).toBeInViewport();
  await expect(first).toHaveCount(0); // scrolled out of the DOM
  await page.keyboard.press('ArrowUp');
  await expect(page.getByRole('button', { name: name(SKILLS - 2), exact: true })).toBeFocused();
  // Rows far apart have their own measured positions: no overlap.
  const [a, b] = await Promise.all([consolePage.tool(name(SKILLS - 2)).boundingBox(), consolePage.tool(name(SKILLS - 1)).boundingBox()]);
  expect(a && b && b.y >= a.y + a.height).toBe(true);

  // The selection was kept all along, and is still marked when its row comes back.
  await expect(consolePage.detail(name(0))).toBeVisible();
  await page.keyboard.press('Home');
  await expect(page.getByRole('button', { name: 'device_inspect', exact: true })).toBeFocused();
  await expect(first).toHaveAttribute('aria-pressed', 'true');

  // Searching the big catalog ranks it through the gateway: tags "group" and "7" both hit group-7's skills first.
  await consolePage.filterInput.fill('group 7');
  await expect(page.locator('[data-results-for="group 7"]')).toBeVisible();
  expect((await consolePage.visibleToolNames())[0]).toBe(name(7));
});
