/**
 * Signing in to a URL MCP server from the console, in a real browser: the server sits behind
 * oidc-provider on loopback (test/support/oauthServers.ts). Its Providers row says it needs a
 * sign-in; Sign in opens the authorization server in a new tab, which (login and consent granted
 * at once by the test's interaction page) comes back to Capstan's loopback listener; the row then
 * shows the server ready, signed in with its scope, expiry and next refresh, and the page holds no
 * token. Sign out puts it back in the sign-in state.
 */
import { test as base, expect } from './fixtures';
import { mcpConfig } from './mcpServers';
import { MCP_SCOPE, startOAuthServers, type OAuthServers } from '../support/oauthServers';

const test = base.extend<{ oauth: OAuthServers }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object.
  oauth: async ({}, use) => {
    const servers = await startOAuthServers();
    await use(servers);
    await servers.close();
  },
  serveConfig: async ({ oauth }, use) => use(mcpConfig({ remote: { url: oauth.mcpUrl } })),
});

test.describe.configure({ timeout: 90_000 });

test('sign in to a URL server from the Providers panel, through the browser, and sign out', async ({ consolePage, page, oauth }) => {
  void consolePage;
  await page.getByRole('button', { name: /^Providers/ }).click();
  const panel = page.getByRole('dialog', { name: 'Providers' });
  const row = panel.getByRole('listitem', { name: 'remote' });
  await expect(row.locator('[data-status="sign_in_required"]')).toBeVisible({ timeout: 30_000 });
  const auth = row.getByTestId('oauth-status');
  await expect(auth).toHaveAttribute('data-state', 'signed_out');

  // Sign in opens the authorization server in a tab of its own; it comes back to Capstan's listener.
  const [signInTab] = await Promise.all([page.context().waitForEvent('page'), auth.getByRole('button', { name: 'Sign in' }).click()]);
  await signInTab.waitForURL(/127\.0\.0\.1:\d+\/callback\?/, { timeout: 30_000 });
  await expect(signInTab.getByRole('heading', { name: 'Signed in' })).toBeVisible();
  await signInTab.close();

  await expect(row.locator('[data-status="ready"]')).toBeVisible({ timeout: 30_000 });
  await expect(auth).toHaveAttribute('data-state', 'signed_in', { timeout: 20_000 });
  await expect(auth).toContainText(MCP_SCOPE);
  await expect(auth).toContainText('Access token expires');
  await expect(auth).toContainText('Next refresh');
  await expect(auth).toContainText(oauth.issuer);
  // The protected server's three tools (test/support/oauthServers.ts: whoami, add_note, careless).
  await expect(row.getByTestId('tools')).toHaveText('3');
  const content = await page.content();
  for (const token of oauth.accessTokens) expect(content.includes(token), 'an access token on the page').toBe(false);

  await auth.getByRole('button', { name: 'Sign out' }).click();
  await expect(auth).toHaveAttribute('data-state', 'signed_out');
  await expect(row.locator('[data-status="sign_in_required"]')).toBeVisible({ timeout: 30_000 });
});
