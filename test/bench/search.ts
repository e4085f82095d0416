/**
 * lexical-v1 over 10,000 synthetic capabilities against MiniSearch indexing the same corpus in
 * the same run: index build time, heap used, and p50 / p99 per query.
 */
import MiniSearch from 'minisearch';
import { LexicalIndex } from '../../electron/catalog/lexical';
import { terms } from '../../shared/lexical';
import { syntheticCatalog, syntheticQueries } from './syntheticCatalog';

const ROUNDS = 5;

function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function timeQueries(run: (query: string) => unknown, queries: string[]) {
  for (const query of queries) run(query); // warm-up
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const query of queries) {
      const started = performance.now();
      run(query);
      samples.push(performance.now() - started);
    }
  }
  samples.sort((a, b) => a - b);
  return { p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99) };
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

  // A caller takes one page (20 hits) of the ordered result; MiniSearch materializes every hit.
  const lexicalTimes = timeQueries((q) => lexical.search(q).slice(0, 20), queries);
  const miniTimes = timeQueries((q) => mini.search(q), queries);
  const matches = queries.map((q) => lexical.search(q).length);

  return {
    count,
    queries: queries.length,
    meanMatches: matches.reduce((a, b) => a + b, 0) / matches.length,
    lexical: { buildMs: lexicalBuildMs, heapMB: lexicalHeap / 2 ** 20, ...lexicalTimes },
    minisearch: { buildMs: miniBuildMs, heapMB: miniHeap / 2 ** 20, ...miniTimes },
    // keep both alive until measured
    keep: [lexical, mini].length,
  };
}
