/**
 * The console with 10,000 skills in Chromium: from a keystroke in the search box to the updated
 * list painted. Every number is taken inside the page: the keydown event's timestamp, a
 * MutationObserver waiting for the list to say it answers the new query (`data-results-for`),
 * then the next frame (requestAnimationFrame, then a task, which runs once that frame is painted).
 * Also what crosses the wire: the size of each search answer, and what one catalog change costs
 * (a capability revoked by another client: the `catalog` event on the stream, and any `GET /catalog`
 * the page makes because of it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { CATALOG_SEARCH_PAGE } from '../../shared/discovery';
import { syntheticCatalog, syntheticQueries } from './syntheticCatalog';

const SKILLS = 10_000;
/** Enough samples for a p95 that is not one unlucky keystroke: 5% of 200 is ten. */
const QUERIES = 200;
const WARM_UP = 5;
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** The synthetic corpus as SKILL.md folders; names repeat across synthetic providers, so keep the first of each. */
async function writeSkills(dir: string, count: number): Promise<number> {
  const seen = new Set<string>();
  const docs = syntheticCatalog(count * 2).filter((doc) => !seen.has(doc.name) && seen.add(doc.name)).slice(0, count);
  const BATCH = 500;
  for (let start = 0; start < docs.length; start += BATCH) {
    await Promise.all(
      docs.slice(start, start + BATCH).map(async (doc) => {
        await mkdir(join(dir, doc.name), { recursive: true });
        const manifest = [`name: ${doc.name}`, `description: ${JSON.stringify(doc.description)}`, `tags: ${JSON.stringify(doc.tags)}`].join('\n');
        await writeFile(join(dir, doc.name, 'SKILL.md'), `---\n${manifest}\n---\n# ${doc.name}\n\n${doc.description}\n`);
      }),
    );
  }
  return docs.length;
}

function startServe(cli: string, dataDir: string, skillsDir: string): Promise<{ child: ChildProcess; consoleUrl: string }> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir, '--skills-dir', skillsDir, '--log-level', 'warn'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Capstan console: (\S+)/.exec(out);
      if (match?.[1]) resolve({ child, consoleUrl: match[1] });
    });
    child.once('exit', (code) => reject(new Error(`capstan serve exited early with ${code}`)));
  });
}

/**
 * Runs in the page (as a string: the bench's TypeScript project has no DOM types). Arms a
 * measurement of the next keystroke in the search box; resolves with keydown → painted, in ms,
 * and where that went: the search answer's end (the resource timing of the last search request)
 * → the list changed in the DOM → painted.
 */
const ARM_MEASUREMENT = `(expected) => {
  window.__capstanKeystroke = new Promise((resolve) => {
    const input = document.querySelector('input[type="search"]');
    let keydownAt;
    // The search asked from here on is the last in the (bounded) resource timing buffer.
    performance.clearResourceTimings();
    input.addEventListener('keydown', (event) => { keydownAt = event.timeStamp; }, { once: true, capture: true });
    const answered = () => document.querySelector('[data-results-for="' + CSS.escape(expected) + '"]') !== null;
    const observer = new MutationObserver(() => {
      if (keydownAt === undefined || !answered()) return;
      observer.disconnect();
      const changedAt = performance.now();
      const answer = performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/catalog/search')).at(-1);
      requestAnimationFrame(() => setTimeout(() => {
        const paintedAt = performance.now();
        resolve({ ms: paintedAt - keydownAt, keydownEpochMs: performance.timeOrigin + keydownAt, answerToChangeMs: answer ? changedAt - answer.responseEnd : NaN, changeToPaintMs: paintedAt - changedAt });
      }, 0));
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-results-for'] });
  });
}`;

/** Types each query in the page's search box, timing its last keystroke to the list painted (ARM_MEASUREMENT). */
async function timeKeystrokes(page: Page, queries: readonly string[]) {
  const search = page.locator('input[type="search"]');
  const settled = (query: string) => page.locator(`[data-results-for="${query.trim().replace(/"/g, '\\"')}"]`).waitFor({ state: 'attached' });
  const samples: number[] = [];
  const answerBytes: number[] = [];
  /** From the search request sent to its answer read: the gateway's part of a keystroke, and the wire's. */
  const answerMs: number[] = [];
  /** From the keystroke to the search request leaving: the page's work before it asks. */
  const sentMs: number[] = [];
  /** The answer read → the list changed in the DOM (the page's JS), and that change → painted (the frame). */
  const toChangeMs: number[] = [];
  const toPaintMs: number[] = [];
  for (const [index, query] of queries.entries()) {
    // Type all but the last character, let the list settle, then time the last keystroke.
    await search.fill(query.slice(0, -1));
    await settled(query.slice(0, -1));
    await page.evaluate(`(${ARM_MEASUREMENT})(${JSON.stringify(query.trim())})`);
    const answered = page.waitForEvent('requestfinished', { predicate: (request) => new URL(request.url()).searchParams.get('query') === query.trim(), timeout: 5_000 });
    await search.press(query.at(-1)!);
    const { ms, keydownEpochMs, answerToChangeMs, changeToPaintMs } = await page.evaluate<{ ms: number; keydownEpochMs: number; answerToChangeMs: number; changeToPaintMs: number }>('window.__capstanKeystroke');
    const request = await answered.catch(() => undefined);
    if (index >= WARM_UP) {
      samples.push(ms);
      toChangeMs.push(answerToChangeMs);
      toPaintMs.push(changeToPaintMs);
      if (request) {
        answerBytes.push((await request.sizes()).responseBodySize);
        answerMs.push(request.timing().responseEnd);
        sentMs.push(request.timing().startTime - keydownEpochMs);
      }
    }
  }
  // A query answered from the page's cache has no search request, so no answer → change: NaN,
  // which must not reach a sort (a comparison with NaN leaves the order, and every percentile, undefined).
  const sorted = (list: number[]) => list.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  return { samples: sorted(samples), answerBytes: sorted(answerBytes), answerMs: sorted(answerMs), sentMs: sorted(sentMs), toChangeMs: sorted(toChangeMs), toPaintMs: sorted(toPaintMs) };
}

/**
 * The baseline: the least a page can do for the same keystroke. A bare search box whose input
 * event fetches the same first page from the same gateway, as the console asks for it, and
 * writes its first 14 hits (the rows the console keeps in the DOM) as plain divs; no framework,
 * no validation, no styles. Served on the gateway's origin by the bench itself.
 */
const BASELINE_PAGE = `<!doctype html><meta charset="utf-8"><title>baseline</title>
<input type="search" aria-label="Search"><div id="list" data-results-for=""></div>
<script>
const token = decodeURIComponent(location.hash.replace(/^#token=/, ''));
const input = document.querySelector('input'), list = document.getElementById('list');
let asked = 0;
input.addEventListener('input', async () => {
  const query = input.value.trim(), mine = ++asked;
  const response = await fetch('/catalog/search?query=' + encodeURIComponent(query) + '&offset=0&limit=${CATALOG_SEARCH_PAGE}', { headers: { authorization: 'Bearer ' + token } });
  const answer = await response.json();
  if (mine !== asked) return;
  list.replaceChildren(...answer.hits.slice(0, 14).map((hit) => { const row = document.createElement('div'); row.textContent = hit.id; return row; }));
  list.dataset.resultsFor = query;
});
</script>`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Reads the gateway's event stream from Node and counts the bytes of each `catalog` event until stopped. */
function watchCatalogEvents(origin: string, token: string) {
  const controller = new AbortController();
  const sizes: number[] = [];
  const done = (async () => {
    const response = await fetch(`${origin}/events`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) return;
      buffer += value;
      const blocks = buffer.split('\n\n');
      buffer = blocks.pop() ?? '';
      for (const block of blocks) if (block.startsWith('event: catalog\n')) sizes.push(Buffer.byteLength(block));
    }
  })().catch(() => {});
  return {
    sizes,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

export async function benchConsoleSearch(cli: string) {
  const root = await mkdtemp(join(tmpdir(), 'capstan-bench-console-'));
  const skillsDir = join(root, 'skills');
  const dataDir = join(root, 'data');
  await mkdir(skillsDir);
  await mkdir(dataDir);
  const written = await writeSkills(skillsDir, SKILLS);
  const serve = await startServe(cli, dataDir, skillsDir);
  const browser = await chromium.launch({ executablePath: process.env.CAPSTAN_CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const search = page.getByRole('searchbox', { name: 'Search capabilities' });
    const settled = (query: string) => page.locator(`[data-results-for="${query.trim().replace(/"/g, '\\"')}"]`).waitFor();

    const navigationStart = Date.now();
    await page.goto(serve.consoleUrl);
    await page.locator('[data-count="skills"]', { hasText: String(written) }).waitFor({ timeout: 60_000 });
    await page.locator('.tool-list__row').first().waitFor();
    const firstListMs = Date.now() - navigationStart;

    // The size of every answer the page reads, by path.
    const bodies: { path: string; bytes: number }[] = [];
    page.on('requestfinished', (request) => {
      void request.sizes().then(
        (sizes) => bodies.push({ path: new URL(request.url()).pathname, bytes: sizes.responseBodySize }),
        () => {},
      );
    });

    // CAPSTAN_BENCH_PAGE_PROFILE=<file>: the page's CPU profile over the timed keystrokes, for DevTools or `node --cpu-prof` tooling.
    const profileTo = process.env.CAPSTAN_BENCH_PAGE_PROFILE;
    // CAPSTAN_BENCH_PAGE_TRACE=<file>: a Chromium trace of the same keystrokes (DevTools' Performance panel loads it).
    const traceTo = process.env.CAPSTAN_BENCH_PAGE_TRACE;
    if (traceTo) await browser.startTracing(page, { path: traceTo, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    const profiler = profileTo ? await page.context().newCDPSession(page) : undefined;
    if (profiler) {
      await profiler.send('Profiler.enable');
      await profiler.send('Profiler.start');
    }
    // Where the page's time goes over the run: Chromium's own counters, read before and after.
    const metrics = await page.context().newCDPSession(page);
    await metrics.send('Performance.enable');
    const counters = async () => Object.fromEntries((await metrics.send('Performance.getMetrics')).metrics.map((metric) => [metric.name, metric.value]));
    const before = await counters();
    const queries = syntheticQueries(QUERIES + WARM_UP, 11);
    const { samples, answerBytes, answerMs, sentMs, toChangeMs, toPaintMs } = await timeKeystrokes(page, queries);
    if (profiler) await writeFile(profileTo!, JSON.stringify((await profiler.send('Profiler.stop')).profile));
    if (traceTo) await browser.stopTracing();
    const after = await counters();
    const keystrokes = 2 * queries.length; // a fill and a keystroke per query
    const perKeystroke = (name: string) => ((after[name]! - before[name]!) * 1000) / keystrokes;
    const pageWork = { scriptMs: perKeystroke('ScriptDuration'), layoutMs: perKeystroke('LayoutDuration'), styleMs: perKeystroke('RecalcStyleDuration'), taskMs: perKeystroke('TaskDuration') };

    // The baseline, on the same gateway and queries, in a page of its own.
    const { origin, hash } = new URL(serve.consoleUrl);
    const bare = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // Why a route: the baseline page must share the gateway's origin (its token, no CORS), and the gateway serves no such page.
    await bare.route(`${origin}/bench-baseline`, (route) => route.fulfill({ contentType: 'text/html', body: BASELINE_PAGE }));
    await bare.goto(`${origin}/bench-baseline${hash}`);
    const baseline = await timeKeystrokes(bare, queries);
    await bare.close();

    const rowsInDom = await page.locator('.tool-list__row').count();
    const tools = Number(await page.locator('[data-count="total"]').textContent());
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    const heap = await cdp.send('Runtime.getHeapUsage');

    // One catalog change with the page open: another client revokes one capability.
    await search.fill('');
    await settled('');
    const token = decodeURIComponent(new URL(serve.consoleUrl).hash.replace(/^#token=/, ''));
    const stream = watchCatalogEvents(origin, token);
    await new Promise((resolve) => setTimeout(resolve, 500));
    bodies.length = 0;
    const changedAt = Date.now();
    const revoked = await fetch(`${origin}/catalog/revoked`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'builtin:time_now', revoked: true }),
    });
    if (!revoked.ok) throw new Error(`POST /catalog/revoked answered ${revoked.status}`);
    await revoked.arrayBuffer();
    await page.locator('[data-count="revoked"]', { hasText: '1' }).waitFor({ timeout: 120_000 });
    const changeShownMs = Date.now() - changedAt;
    // Whatever the page reads because of the change has had time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await stream.stop();
    const catalogReads = bodies.filter((body) => body.path === '/catalog');

    return {
      capabilities: written + tools,
      queries: samples.length,
      p50Ms: percentile(samples, 50),
      p95Ms: percentile(samples, 95),
      maxMs: samples.at(-1)!,
      baseline: { p50Ms: percentile(baseline.samples, 50), p95Ms: percentile(baseline.samples, 95), maxMs: baseline.samples.at(-1)!, answerP50Ms: percentile(baseline.answerMs, 50), sentP50Ms: percentile(baseline.sentMs, 50), toChangeP50Ms: percentile(baseline.toChangeMs, 50), toPaintP50Ms: percentile(baseline.toPaintMs, 50) },
      firstListMs,
      heapMB: heap.usedSize / 2 ** 20,
      rowsInDom,
      pageWork,
      searchAnswer: { p50Bytes: percentile(answerBytes, 50), maxBytes: answerBytes.at(-1) ?? 0, p50Ms: percentile(answerMs, 50), p95Ms: percentile(answerMs, 95), sentP50Ms: percentile(sentMs, 50), toChangeP50Ms: percentile(toChangeMs, 50), toPaintP50Ms: percentile(toPaintMs, 50) },
      catalogChange: {
        shownMs: changeShownMs,
        eventBytes: stream.sizes.reduce((a, b) => a + b, 0),
        events: stream.sizes.length,
        catalogReads: catalogReads.length,
        catalogReadBytes: catalogReads.reduce((a, b) => a + b.bytes, 0),
      },
    };
  } finally {
    await browser.close();
    serve.child.kill('SIGTERM');
    await rm(root, { recursive: true, force: true });
  }
}
