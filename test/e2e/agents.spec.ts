/**
 * Settings → Agents: a token made in the console is shown once with a copy button, works at
 * once, is never shown again, and revoking it cuts the agent off at once. The ledger names the
 * agent on its entries and the operator on the console's.
 */
import { expect, test } from './fixtures';

test('creates an agent token shown once, which works at once, names the agent in the ledger, and is refused once revoked', async ({ consolePage, page, context, capstan }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByRole('button', { name: 'Settings' }).click();
  const settings = consolePage.settingsDialog();
  await expect(settings.getByRole('tab', { name: 'One-click tools' })).toBeFocused();
  // Arrow keys move between the tabs.
  await page.keyboard.press('ArrowRight');
  await expect(settings.getByRole('tab', { name: 'Agents' })).toHaveAttribute('aria-selected', 'true');
  await expect(settings).toContainText('No agent has a token yet');

  // A name the gateway would refuse is refused in the page, described and focused.
  const name = settings.getByRole('textbox', { name: 'Agent name' });
  await name.fill('claude desktop');
  await settings.getByRole('button', { name: 'Create token' }).click();
  await expect(name).toBeFocused();
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(name).toHaveAccessibleDescription(/without spaces/);

  await name.fill('claude-desktop');
  await settings.getByRole('button', { name: 'Create token' }).click();
  const shown = settings.getByTestId('agent-token');
  await expect(shown).toHaveText(/^capstan_agent_[A-Za-z0-9_-]{43}$/);
  const token = (await shown.textContent())!;
  await expect(settings).toContainText('shown only this once');
  await settings.getByRole('button', { name: 'Copy token' }).click();
  await expect(settings.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(token);
  const row = settings.getByRole('row', { name: /claude-desktop/ });
  await expect(row).toContainText('never');

  // The token works at once, as an agent would use it.
  const call = await fetch(`${capstan.origin}/tools/call`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool: 'time_now', requestId: 'agent-e2e-1' }),
  });
  expect(call.status).toBe(200);

  // Done: the token leaves the page for good; reopening Settings shows the agent, used, but never its token.
  await settings.getByRole('button', { name: 'Done' }).click();
  await expect(settings.getByTestId('agent-token')).toHaveCount(0);
  await settings.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: 'Settings' }).click();
  await settings.getByRole('tab', { name: 'Agents' }).click();
  await expect(row).toBeVisible();
  await expect(row).not.toContainText('never');
  expect(await page.content()).not.toContain(token);

  // Revoking asks first, with Keep focused, then takes effect on the agent's next request.
  await row.getByRole('button', { name: 'Revoke…' }).click();
  await expect(row.getByRole('button', { name: 'Keep' })).toBeFocused();
  await row.getByRole('button', { name: 'Revoke claude-desktop' }).click();
  await expect(settings.getByRole('row', { name: /claude-desktop/ })).toHaveCount(0);
  await expect(settings).toContainText('No agent has a token yet');
  const refused = await fetch(`${capstan.origin}/tools`, { headers: { authorization: `Bearer ${token}` } });
  expect(refused.status).toBe(401);
  await settings.getByRole('button', { name: 'Close' }).click();

  // The ledger names who did what: the agent's call, and the operator's from the console.
  await (await consolePage.select('time_now')).getByRole('button', { name: 'Execute' }).click();
  const operatorRequest = await consolePage.requestIdOf(consolePage.latestExecution);
  await consolePage.openLedger();
  await expect(consolePage.ledgerRows({ requestId: 'agent-e2e-1' }).first()).toContainText('agent:claude-desktop');
  await expect(consolePage.ledgerRows({ requestId: operatorRequest }).first()).toContainText('operator');
  await consolePage.ledgerRows({ requestId: 'agent-e2e-1', kind: 'call_finished' }).click();
  const drawer = page.getByRole('dialog', { name: /^Ledger entry/ });
  await drawer.getByRole('button', { name: 'all of this principal' }).click();
  // The call's two entries, and its task's start: the agent's call began a task in its own session.
  await expect(consolePage.ledgerRows()).toHaveCount(4);
  for (const shown of await consolePage.ledgerRows().all()) await expect(shown).toContainText('agent:claude-desktop');
  await expect(page.getByRole('searchbox', { name: 'Principal' })).toHaveValue('agent:claude-desktop');
});
