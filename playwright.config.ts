/**
 * End-to-end tests: the built console in Debian's Chromium against a real `capstan serve`.
 * There is no webServer block: each test starts its own gateway on port 0 with a fresh data
 * dir (see test/e2e/fixtures.ts), so tests never share state. Run `npm run build` first.
 */
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'test/e2e',
  // The README's screenshots (tests tagged @screenshot) compare nothing: they only write images
  // to build/, so they run under `npm run screenshot` (CAPSTAN_SCREENSHOT=1) and not at all otherwise.
  ...(process.env.CAPSTAN_SCREENSHOT ? {} : { grepInvert: /@screenshot/ }),
  fullyParallel: true,
  workers: 2,
  retries: 0,
  forbidOnly: Boolean(process.env.CI),
  reporter: 'list',
  timeout: 30_000,
  expect: { timeout: 5_000 },
  use: {
    headless: true,
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    launchOptions: {
      // Playwright's own browser download needs network access we do not have; Debian's Chromium works.
      executablePath: process.env.CAPSTAN_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
});
