/** The console as an operator sees it: named regions and controls, found by role and label. */
import { expect, type Locator, type Page } from '@playwright/test';

export type ToolStateName = 'executable' | 'read-only' | 'locked';
export type CountName = 'total' | 'direct' | 'confirm' | 'skills' | 'revoked' | 'generation' | 'diagnostics';

export class ConsolePage {
  /** The capability list's pane: filters, search, rows or the empty state. */
  readonly capabilities: Locator;
  readonly toolCards: Locator;
  readonly filterInput: Locator;
  readonly executions: Locator;
  readonly executionEntries: Locator;

  constructor(readonly page: Page) {
    this.capabilities = page.getByRole('region', { name: 'Capabilities' });
    this.toolCards = this.capabilities.getByRole('article');
    this.filterInput = page.getByRole('searchbox', { name: 'Search capabilities' });
    this.executions = page.getByRole('region', { name: 'Recent executions' });
    this.executionEntries = this.executions.getByRole('listitem');
  }

  async open(url: string): Promise<void> {
    await this.page.goto(url);
    await expect(this.count('total')).not.toBeEmpty();
  }

  tool(name: string): Locator {
    return this.page.getByRole('article', { name, exact: true });
  }

  toolsInState(state: ToolStateName): Locator {
    return this.toolCards.and(this.page.locator(`[data-state="${state}"]`));
  }

  count(name: CountName): Locator {
    return this.page.locator(`[data-count="${name}"]`);
  }

  filterButton(label: 'All' | 'Low risk' | 'Confirmation required'): Locator {
    return this.page.getByRole('group', { name: 'Filter by risk' }).getByRole('button', { name: label, exact: true });
  }

  async visibleToolNames(): Promise<string[]> {
    return this.toolCards.getByRole('heading', { level: 3 }).allTextContents();
  }

  /** The panel of the selected tool, named after it. */
  detail(name: string): Locator {
    return this.page.getByRole('region', { name, exact: true });
  }

  async select(name: string): Promise<Locator> {
    await this.tool(name).getByRole('button', { name, exact: true }).click();
    await expect(this.detail(name)).toBeVisible();
    return this.detail(name);
  }

  /** The newest entry in Recent executions. */
  get latestExecution(): Locator {
    return this.executionEntries.first();
  }

  async requestIdOf(entry: Locator): Promise<string> {
    return (await entry.getByTestId('request-id').textContent()) ?? '';
  }

  /** The JSON an entry shows, parsed. */
  async responseOf(entry: Locator): Promise<unknown> {
    return JSON.parse((await entry.locator('pre.json-block').textContent()) ?? 'null');
  }

  reviewDialog(): Locator {
    return this.page.getByRole('dialog', { name: 'Review and confirm this call' });
  }

  settingsDialog(): Locator {
    return this.page.getByRole('dialog', { name: 'Settings' });
  }
}
