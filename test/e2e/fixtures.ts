/**
 * Test fixtures: a fresh gateway per test (its own data dir, port and token), a console page
 * opened on it, and a guard that fails the test on any page error, console error or CSP
 * violation. A spec can give the gateway more arguments by overriding `serveArgs`, e.g. a
 * skills folder: `test.extend({ serveArgs: async ({ skillsDir }, use) => use(['--skills-dir', skillsDir]) })`,
 * and a config.json (MCP servers, grants) by overriding `serveConfig` (see mcpServers.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, expect, type ConsoleMessage, type Page } from '@playwright/test';
import { operations } from '../../shared/api';
import { EVENTS_PATH } from '../../shared/events';
import { startCapstan, type CapstanServer } from './capstanServer';
import { ConsolePage } from './consolePage';

const API_PATHS: ReadonlySet<string> = new Set([...Object.values(operations).map((operation) => operation.path), EVENTS_PATH]);

/**
 * Chromium logs every 4xx and 5xx response as a console error. A 4xx from an API route is the
 * gateway's answer (ARGUMENT_MISSING, UNAUTHORIZED, the confirmation challenge...), and so are
 * 502, 503 and 504 (an MCP tool's TOOL_ERROR, PROVIDER_UNAVAILABLE, OUTCOME_UNKNOWN), which the
 * console is meant to show, so only those are expected; anything else (a 500) fails the test.
 */
function isExpectedGatewayAnswer(message: ConsoleMessage): boolean {
  if (!/^Failed to load resource: the server responded with a status of (4\d\d|50[234])\b/.test(message.text())) return false;
  try {
    return API_PATHS.has(new URL(message.location().url).pathname);
  } catch {
    return false;
  }
}

interface Fixtures {
  /** An empty data dir, removed after the test. */
  dataDir: string;
  /** An empty folder for SKILL.md files (see skills.ts), removed after the test; the gateway reads it only if `serveArgs` names it. */
  skillsDir: string;
  /** Extra arguments for `capstan serve`; none by default. */
  serveArgs: string[];
  /** config.json for the gateway (MCP servers, grants...), written into the data dir before it starts; none by default. */
  serveConfig: Record<string, unknown> | undefined;
  capstan: CapstanServer;
  /** The console, opened with the URL `capstan serve` printed, registry loaded. */
  consolePage: ConsolePage;
  pageProblems: PageProblems;
}

/** Problems seen on the page; a test that provokes one on purpose (a dead gateway) allows it by pattern. */
export interface PageProblems {
  seen: string[];
  allow(pattern: RegExp): void;
}

/**
 * What Chromium logs when the gateway stops under a page: its reads refused, a connection it kept
 * open reset or answered empty, the live event stream cut mid-response, a socket closed while a
 * request was still being sent. A test that stops the gateway allows these, and only these.
 */
export const GATEWAY_STOPPED = /Failed to load resource: net::(ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|ERR_EMPTY_RESPONSE|ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_SOCKET_NOT_CONNECTED)/;

export const test = base.extend<Fixtures>({
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object.
  dataDir: async ({}, use) => {
    const dir = await mkdtemp(join(tmpdir(), 'capstan-e2e-'));
    await use(dir);
    await rm(dir, { recursive: true, force: true });
  },
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object.
  skillsDir: async ({}, use) => {
    const dir = await mkdtemp(join(tmpdir(), 'capstan-e2e-skills-'));
    await use(dir);
    await rm(dir, { recursive: true, force: true });
  },
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object.
  serveArgs: async ({}, use) => use([]),
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object.
  serveConfig: async ({}, use) => use(undefined),
  capstan: async ({ dataDir, serveArgs, serveConfig }, use) => {
    const server = await startCapstan(dataDir, { args: serveArgs, ...(serveConfig ? { config: serveConfig } : {}) });
    await use(server);
    await server.stop();
  },
  consolePage: async ({ page, capstan }, use) => {
    const consolePage = new ConsolePage(page);
    await consolePage.open(capstan.consoleUrl);
    await use(consolePage);
  },
  pageProblems: [
    // It depends on the gateway so that it is judged before the gateway stops: the page's event
    // stream reconnecting to a gateway stopped after the test is not a problem of the test.
    async ({ page, capstan: _capstan }, use) => {
      const seen = await watchForProblems(page);
      const allowed: RegExp[] = [];
      await use({ seen, allow: (pattern) => allowed.push(pattern) });
      const unexpected = seen.filter((problem) => !allowed.some((pattern) => pattern.test(problem)));
      expect(unexpected, 'page errors, console errors or CSP violations').toEqual([]);
    },
    { auto: true },
  ],
});

async function watchForProblems(page: Page): Promise<string[]> {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !isExpectedGatewayAnswer(message)) problems.push(`console.error: ${message.text()}`);
  });
  // Chromium logs some CSP violations to the console but not all (a blocked `new Function` inside
  // a try is silent); the event reports every one. A string: it runs in the page, not here.
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) =>
      console.error('CSP violation: ' + event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline code')));`,
  });
  return problems;
}

export { expect };
