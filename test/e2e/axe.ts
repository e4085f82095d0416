/**
 * axe-core over a part of the page, in the light theme and the dark one (the dark one for the
 * colour rules only, the one thing that differs), as a11y.spec.ts checks every view: for specs
 * that check a state of their own where it arises. One line per violation: theme, view, rule, where.
 */
import type { Page } from '@playwright/test';
import axe, { type AxeResults, type RunOptions } from 'axe-core';

const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

export async function axeViolations(page: Page, view: string, scope?: string): Promise<string[]> {
  const found: string[] = [];
  if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) await page.evaluate(axe.source);
  for (const theme of ['light', 'dark'] as const) {
    const options: RunOptions = { resultTypes: ['violations'], ...(theme === 'dark' ? { runOnly: { type: 'rule', values: COLOUR_RULES } } : {}) };
    const context = scope ? JSON.stringify(scope) : 'document';
    const result = await page.evaluate<AxeResults>(`document.documentElement.dataset.theme = '${theme}'; axe.run(${context}, ${JSON.stringify(options)})`);
    for (const violation of result.violations) for (const node of violation.nodes) found.push(`${theme}, ${view}: ${violation.id} at ${node.target.join(' ')}: ${node.failureSummary ?? ''}`);
  }
  await page.evaluate("document.documentElement.dataset.theme = 'light'");
  return found;
}
