/** The inspect drawer: the gateway's validated contract, hashes and generations, and Revoke / Restore. */
import type { CatalogView } from '../../shared/discovery';
import type { CapstanServer } from './capstanServer';
import { expect, test } from './fixtures';
import { BUILTIN } from '../support/builtins';
import { writeSkill } from './skills';

async function catalogOf(capstan: CapstanServer): Promise<CatalogView> {
  const response = await fetch(`${capstan.origin}/catalog`, { headers: { authorization: `Bearer ${capstan.token}` } });
  return (await response.json()) as CatalogView;
}

test('inspecting time_now shows its contractHash, catalog and binding generations, schema and policy flags', async ({ consolePage, page, capstan }) => {
  const catalog = await catalogOf(capstan);
  const timeNow = catalog.capabilities.find((entry) => entry.contract.id === 'builtin:time_now')!;

  const detail = await consolePage.select('time_now');
  await detail.getByRole('button', { name: 'Inspect', exact: true }).click();
  const drawer = page.getByRole('dialog', { name: 'Inspect time_now' });
  await expect(drawer).toBeVisible();
  await expect(drawer.getByTestId('contract-hash')).toContainText(timeNow.contractHash);
  expect(timeNow.contractHash).toMatch(/^[0-9a-f]{64}$/);
  await expect(drawer.getByTestId('catalog-generation')).toHaveText(String(catalog.catalogGeneration));
  await expect(drawer.getByTestId('binding-generation')).toHaveText(String(timeNow.bindingGeneration));
  await expect(drawer.getByTestId('id')).toHaveText('builtin:time_now');
  await expect(drawer).toContainText('modelDiscoverable');
  await expect(drawer).toContainText('No diagnostics for this capability.');
  const schema = JSON.parse((await drawer.getByLabel('time_now input schema').textContent()) ?? '');
  expect(schema).toEqual(timeNow.contract.kind === 'tool' && timeNow.contract.inputSchema);

  await drawer.getByRole('button', { name: 'Close' }).click();
  await expect(drawer).toBeHidden();
});

const skillTest = test.extend({
  serveArgs: async ({ skillsDir }, use) => {
    await writeSkill(skillsDir, 'release-checklist', {
      description: 'Steps before a release.',
      tags: ['release'],
      'argument-hint': '<version>',
      'allowed-tools': 'Read Grep',
      'disable-model-invocation': true,
    });
    await use(['--skills-dir', skillsDir]);
  },
});

skillTest('inspecting a skill shows its file, argument hint, allowed tools, manifest and body hashes', async ({ consolePage, page, capstan }) => {
  const catalog = await catalogOf(capstan);
  const entry = catalog.capabilities.find((candidate) => candidate.contract.id === 'skills:release-checklist')!;
  if (entry.contract.kind !== 'skill') throw new Error('expected a skill');

  await expect(consolePage.tool('release-checklist')).toHaveAttribute('data-state', 'skill-hidden');
  await expect(consolePage.tool('release-checklist')).toContainText('Hidden from models');
  const detail = await consolePage.select('release-checklist');
  await expect(detail.getByRole('button', { name: 'Execute' })).toHaveCount(0);
  // Its text, as a model would read it, and what activating it costs.
  await expect(detail.getByLabel('SKILL.md')).toContainText('1. Do the thing.');
  await expect(detail.locator('[data-tokens]')).toContainText(/about \d+ tokens/);
  await detail.getByRole('button', { name: 'Inspect', exact: true }).click();

  const drawer = page.getByRole('dialog', { name: 'Inspect release-checklist' });
  await expect(drawer.getByTestId('contract-hash')).toContainText(entry.contractHash);
  await expect(drawer.getByTestId('catalog-generation')).toHaveText(String(catalog.catalogGeneration));
  await expect(drawer.getByTestId('binding-generation')).toHaveText(String(entry.bindingGeneration));
  await expect(drawer.getByTestId('path')).toHaveText(entry.contract.path);
  await expect(drawer.getByTestId('manifest-hash')).toHaveText(entry.contract.manifestHash);
  await expect(drawer.getByTestId('body-hash')).toHaveText(entry.contract.bodyHash);
  await expect(drawer).toContainText('<version>');
  await expect(drawer).toContainText('Read, Grep');
  await expect(drawer.getByRole('group', { name: 'Contract facts' }).or(drawer.locator('.facts'))).toContainText('modelDiscoverableno');
});

test('revoking a tool asks first, then it shows as revoked, cannot run, and leaves the figures; Restore brings it back', async ({ consolePage, page }) => {
  const detail = await consolePage.select('time_now');
  await detail.getByRole('button', { name: 'Inspect', exact: true }).click();
  const drawer = page.getByRole('dialog', { name: 'Inspect time_now' });

  await drawer.getByRole('button', { name: 'Revoke…' }).click();
  const confirm = drawer.getByRole('group', { name: 'Confirm: revoke builtin:time_now' });
  await expect(confirm).toContainText('refuse it everywhere');
  // Cancel is the default and changes nothing.
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(consolePage.tool('time_now')).toHaveAttribute('data-state', 'executable');

  await drawer.getByRole('button', { name: 'Revoke…' }).click();
  await confirm.getByRole('button', { name: 'Revoke builtin:time_now' }).click();
  await expect(drawer.getByRole('button', { name: 'Restore…' })).toBeVisible();
  await drawer.getByRole('button', { name: 'Close' }).click();

  await expect(consolePage.tool('time_now')).toHaveAttribute('data-state', 'revoked');
  await expect(consolePage.tool('time_now')).toContainText('Revoked');
  await expect(detail.getByRole('button', { name: 'Execute' })).toHaveCount(0);
  await expect(detail).toContainText('the gateway refuses this tool everywhere');
  await expect(consolePage.count('total')).toHaveText(String(BUILTIN.total - 1));
  await expect(consolePage.count('revoked')).toHaveText('1');

  await detail.getByRole('button', { name: 'Inspect', exact: true }).click();
  await drawer.getByRole('button', { name: 'Restore…' }).click();
  await drawer.getByRole('button', { name: 'Restore builtin:time_now' }).click();
  await expect(drawer.getByRole('button', { name: 'Revoke…' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(consolePage.tool('time_now')).toHaveAttribute('data-state', 'executable');
  await expect(consolePage.count('total')).toHaveText(String(BUILTIN.total));
  await detail.getByRole('button', { name: 'Execute' }).click();
  await expect(consolePage.latestExecution).toContainText('ok');
});
