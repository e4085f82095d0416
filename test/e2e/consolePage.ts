/** The console as an operator sees it: named regions and controls, found by role and label. */
import { expect, type Locator, type Page } from '@playwright/test';

export type ToolStateName = 'executable' | 'read-only' | 'locked';
export type CountName = 'total' | 'direct' | 'unlocked' | 'confirm' | 'skills' | 'resources' | 'prompts' | 'revoked' | 'unavailable' | 'not-runnable' | 'generation' | 'diagnostics';

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
    // The first page of a run parses the whole bundle in a cold browser: on a busy machine, more than the default 5 s.
    await expect(this.count('total')).not.toBeEmpty({ timeout: 15_000 });
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

  /** A tab of the activity dock ("Tasks" or "Ledger"), whatever badges it carries. */
  dockTab(name: 'Tasks' | 'Ledger'): Locator {
    return this.page.getByRole('tablist', { name: 'Activity views' }).getByRole('tab', { name: new RegExp(`^${name}`) });
  }

  /** Opens the Tasks view and returns its panel. */
  async openTasks(): Promise<Locator> {
    await this.dockTab('Tasks').click();
    const panel = this.page.getByRole('tabpanel', { name: /^Tasks/ });
    await expect(panel).toBeVisible();
    return panel;
  }

  /** Opens the Ledger view and returns its panel. */
  async openLedger(): Promise<Locator> {
    await this.dockTab('Ledger').click();
    const panel = this.page.getByRole('tabpanel', { name: /^Ledger/ });
    await expect(panel).toBeVisible();
    return panel;
  }

  /** Rows of the Ledger view's grid that are rendered (it is virtualized), newest first. */
  ledgerRows(filter: { requestId?: string; kind?: string } = {}): Locator {
    let selector = '.ledger-grid__body [role="row"]';
    if (filter.requestId) selector += `[data-request-id="${filter.requestId}"]`;
    if (filter.kind) selector += `[data-kind="${filter.kind}"]`;
    return this.page.locator(selector);
  }

  /** The active task's card in the Tasks view. */
  activeTask(): Locator {
    return this.page.getByRole('region', { name: 'Activity' }).locator('.task-card');
  }

  /** A task's row under Waiting or Finished, by title. */
  taskRow(list: 'Queued and blocked tasks' | 'Finished tasks', title: string): Locator {
    return this.page.getByRole('list', { name: list }).getByRole('listitem', { name: title, exact: true });
  }
}
