/**
 * lexical-v1 over 10,000 synthetic capabilities against MiniSearch indexing the same corpus in
 * the same run: index build time, heap used, and p50 / p99 per query, for the same work on both
 * sides. Two kinds of work are timed, in interleaved rounds so machine load falls on both alike:
 *
 * - the full ordered result list, every hit materialized as an object (what MiniSearch's
 *   `search` always does);
 * - the first 20 hits in order (one page, what discovery and the console ask for): lexical-v1
 *   sorts packed keys and builds only those 20 objects; MiniSearch has no top-k, so it builds and
 *   sorts every hit and the page is sliced from that, which is the work it takes to answer.
 */
import MiniSearch from 'minisearch';
import { LexicalIndex } from '../../electron/catalog/lexical';
import { terms } from '../../shared/lexical';
import { syntheticCatalog, syntheticQueries } from './syntheticCatalog';

const ROUNDS = 5;
const PAGE = 20;

function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface Timing {
  p50Ms: number;
  p99Ms: number;
}

/**
 * Times each runner on every query, ROUNDS times, alternating runners query by query so both see
 * the same machine. A result's length is kept so the engine cannot skip the work.
 */
function timeInterleaved(runners: Record<string, (query: string) => { length: number }>, queries: readonly string[]): Record<string, Timing> {
  const names = Object.keys(runners);
  let sink = 0;
  for (const query of queries) for (const name of names) sink += runners[name]!(query).length; // warm-up
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const query of queries) {
      for (const name of round % 2 === 0 ? names : [...names].reverse()) {
        const started = performance.now();
        sink += runners[name]!(query).length;
        samples[name]!.push(performance.now() - started);
      }
    }
  }
  if (sink < 0) throw new Error('unreachable');
  return Object.fromEntries(
    names.map((name) => {
      const sorted = samples[name]!.sort((a, b) => a - b);
      return [name, { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) }];
    }),
  );
}

export function benchSearch(count = 10_000) {
  const docs = syntheticCatalog(count);
  const queries = syntheticQueries(200);

  let before = heapUsed();
  let started = performance.now();
  const lexical = new LexicalIndex(docs);
  const lexicalBuildMs = performance.now() - started;
  const lexicalHeap = heapUsed() - before;

  before = heapUsed();
  started = performance.now();
  // The same fields and field order, prefix search on, and the same tokenizer, so both engines
  // answer the same question.
  const mini = new MiniSearch({
    idField: 'id',
    fields: ['name', 'tags', 'description', 'provider', 'kind'],
    extractField: (doc, field) => (field === 'tags' ? (doc as { tags: string[] }).tags.join(' ') : (doc as Record<string, string>)[field]!),
    tokenize: terms,
    processTerm: (term) => term,
    searchOptions: { prefix: true, boost: { name: 100, tags: 10, description: 1, provider: 0.2, kind: 0.1 } },
  });
  mini.addAll(docs);
  const miniBuildMs = performance.now() - started;
  const miniHeap = heapUsed() - before;

  const full = timeInterleaved({ lexical: (q) => lexical.search(q).slice(), mini: (q) => mini.search(q) }, queries);
  const page = timeInterleaved({ lexical: (q) => lexical.search(q).slice(0, PAGE), mini: (q) => mini.search(q).slice(0, PAGE) }, queries);
  const matches = queries.map((q) => lexical.search(q).length);
  const miniMatches = queries.map((q) => mini.search(q).length);
  const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;

  return {
    count,
    queries: queries.length,
    rounds: ROUNDS,
    page: PAGE,
    meanMatches: mean(matches),
    miniMeanMatches: mean(miniMatches),
    lexical: { buildMs: lexicalBuildMs, heapMB: lexicalHeap / 2 ** 20, full: full.lexical!, page: page.lexical! },
    minisearch: { buildMs: miniBuildMs, heapMB: miniHeap / 2 ** 20, full: full.mini!, page: page.mini! },
    // keep both alive until measured
    keep: [lexical, mini].length,
  };
}
