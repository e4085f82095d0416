/**
 * Locked tools run only through the review-and-confirm flow. http_check is aimed at a loopback
 * HTTP server started by the test, so the test can see whether a request really went out.
 */
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';

/** A distinctive status, so the result can only have come from this server. */
const TARGET_STATUS = 203;

interface Target {
  url: string;
  received: { method: string; url: string }[];
}

const targetTest = test.extend<{ target: Target }>({
  // The target is a loopback server, which http_check's destination policy refuses unless allowed.
  dataDir: async ({ dataDir }, use) => {
    await writeFile(join(dataDir, 'config.json'), JSON.stringify({ httpCheck: { allow: ['127.0.0.1/32'] } }));
    await use(dataDir);
  },
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object.
  target: async ({}, use) => {
    const received: Target['received'] = [];
    const server: Server = createServer((request, response) => {
      received.push({ method: request.method ?? '', url: request.url ?? '' });
      response.writeHead(TARGET_STATUS, { 'content-type': 'text/plain', server: 'capstan-e2e-target' });
      response.end('checked');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await use({ url: `http://127.0.0.1:${port}/health`, received });
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  },
});

/** Every tool call the page sends to the gateway. */
function recordToolCalls(page: Page): unknown[] {
  const calls: unknown[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/tools/call') calls.push(request.postDataJSON());
  });
  return calls;
}

targetTest('confirming http_check in the review dialog runs it against the loopback server', async ({ consolePage, page, target }) => {
  const calls = recordToolCalls(page);
  const detail = await consolePage.select('http_check');
  await expect(detail.getByRole('button', { name: 'Execute' })).toHaveCount(0);
  await detail.getByLabel('url').fill(target.url);
  await detail.getByRole('button', { name: 'Review and run' }).click();

  const dialog = consolePage.reviewDialog();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await expect(dialog).toContainText('http_check');
  await expect(dialog).toContainText('medium risk');
  const shown = JSON.parse((await dialog.getByTestId('review-arguments').textContent()) ?? '');
  expect(shown).toEqual({ url: target.url, method: 'HEAD', timeoutMs: 5000 });
  expect(calls).toEqual([]);

  await dialog.getByRole('button', { name: 'Confirm and run' }).click();
  await expect(dialog).toBeHidden();

  const entry = consolePage.latestExecution;
  await expect(entry).toContainText('ok');
  await expect(entry).toContainText('http_check');
  await expect(entry).toContainText('confirmed');
  // One run, confirmed: the 428 the page answered is not a refused call of its own.
  await expect(consolePage.executionEntries).toHaveCount(1);
  const response = (await consolePage.responseOf(entry)) as { ok: boolean; result: { status: number; reachable: boolean; headers: Record<string, string> } };
  expect(response.ok).toBe(true);
  expect(response.result.status).toBe(TARGET_STATUS);
  expect(response.result.headers.server).toBe('capstan-e2e-target');
  expect(target.received).toEqual([{ method: 'HEAD', url: '/health' }]);
  // Every call the page made carried exactly the arguments it showed for review.
  for (const call of calls) expect(call).toMatchObject({ tool: 'http_check', arguments: shown });
});

targetTest('Cancel in the review dialog closes it and sends nothing', async ({ consolePage, page, target }) => {
  const calls = recordToolCalls(page);
  const detail = await consolePage.select('http_check');
  await detail.getByLabel('url').fill(target.url);
  const reviewButton = detail.getByRole('button', { name: 'Review and run' });

  await reviewButton.click();
  await consolePage.reviewDialog().getByRole('button', { name: 'Cancel' }).click();
  await expect(consolePage.reviewDialog()).toBeHidden();
  await expect(reviewButton).toBeFocused();

  // Escape is a cancel too.
  await reviewButton.click();
  await expect(consolePage.reviewDialog()).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(consolePage.reviewDialog()).toBeHidden();

  // Then a call the test knows the page sends: the page sends its requests in order, so once this
  // one is seen, a call sent by either cancel would have been seen before it.
  const sentinel = page.waitForRequest((request) => new URL(request.url()).pathname === '/tools/call');
  await (await consolePage.select('time_now')).getByRole('button', { name: 'Execute' }).click();
  expect((await sentinel).postDataJSON()).toMatchObject({ tool: 'time_now' });
  await expect(consolePage.latestExecution).toContainText('ok');
  expect(calls).toEqual([expect.objectContaining({ tool: 'time_now' })]);
  expect(target.received).toEqual([]);
  await expect(consolePage.executionEntries).toHaveCount(1);
});

test('http_check without a url cannot be confirmed: the field says why and nothing is sent', async ({ consolePage, page }) => {
  const calls = recordToolCalls(page);
  const detail = await consolePage.select('http_check');
  await detail.getByRole('button', { name: 'Review and run' }).click();

  await expect(consolePage.reviewDialog()).toBeHidden();
  await expect(detail.getByRole('alert')).toContainText('Not sent');
  const url = detail.getByLabel('url');
  await expect(url).toBeFocused();
  await expect(url).toHaveAttribute('aria-invalid', 'true');
  await expect(url).toHaveAccessibleDescription(/url is required/);
  // Every id a field is described by is on the page.
  // A string, as the page's own code: the Node project's type check has no DOM types.
  const missing = await page.evaluate<string[]>(`(() => {
    return [...document.querySelectorAll('[aria-describedby]')]
      .flatMap((element) => element.getAttribute('aria-describedby').split(/\\s+/))
      .filter((id) => !document.getElementById(id));
  })()`);
  expect(missing).toEqual([]);

  // Fixed, the field is no longer marked and the review opens.
  await url.fill('https://example.com/health');
  await expect(url).not.toHaveAttribute('aria-invalid');
  await detail.getByRole('button', { name: 'Review and run' }).click();
  await expect(consolePage.reviewDialog()).toBeVisible();
  expect(calls).toEqual([]);
});
