/** `npm run bench`: every benchmark, each against a baseline measured in the same run. */
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchConsoleSearch } from './consoleSearch';
import { benchGatewayThroughput, type Measured } from './gatewayThroughput';
import { benchEventDelay, benchLedgerAppends, benchLedgerThroughput, serveVariant, type Variant } from './ledger';
import { benchMcpPaths, benchMcpServe, MCP_PATHS } from './mcp';
import { benchMcpServer } from './mcpServer';
import { benchSearch } from './search';
import { benchStartup } from './startup';

const cli = fileURLToPath(new URL('./cli.js', import.meta.url));
const bench = fileURLToPath(import.meta.url);
const fixed = (value: number, digits = 1) => value.toFixed(digits);
const only = process.argv.slice(2);
const wanted = (name: string) => only.length > 0 && only[0] !== '--serve' ? only.includes(name) : only.length === 0;
const loadAverage = () => `load average ${loadavg().map((load) => fixed(load, 2)).join(', ')} on ${availableParallelism()} cores`;
const serverRow = (row: Measured) => ({ 'requests/s': fixed(row.requestsPerSecond, 0), 'worst p99 ms': row.p99Ms, 'server CPU ms/request': fixed(row.cpuMsPerRequest, 3) });

// A child of the ledger bench: one of its gateway variants (ledger.ts, serveVariant).
if (only[0] === '--serve') await serveVariant(only[1] as Variant);

if (wanted('search')) {
  const search = benchSearch();
  console.log(
    `\nSearch: ${search.count} synthetic capabilities, ${search.queries} queries × ${search.rounds} rounds interleaved, mean ${fixed(search.meanMatches, 0)} matches per query (MiniSearch ${fixed(search.miniMeanMatches, 0)})`,
  );
  const row = (engine: typeof search.lexical) => ({
    'build ms': fixed(engine.buildMs),
    'heap MB': fixed(engine.heapMB),
    'full list p50 ms': fixed(engine.full.p50Ms, 3),
    'full list p99 ms': fixed(engine.full.p99Ms, 3),
    [`first ${search.page} p50 ms`]: fixed(engine.page.p50Ms, 3),
    [`first ${search.page} p99 ms`]: fixed(engine.page.p99Ms, 3),
  });
  console.table({ 'lexical-v1': row(search.lexical), MiniSearch: row(search.minisearch) });
  const ratio = (a: number, b: number) => fixed(a / b, 2);
  console.log(
    `lexical-v1/MiniSearch, full list: p50 ${ratio(search.lexical.full.p50Ms, search.minisearch.full.p50Ms)}, p99 ${ratio(search.lexical.full.p99Ms, search.minisearch.full.p99Ms)}; ` +
      `first ${search.page}: p50 ${ratio(search.lexical.page.p50Ms, search.minisearch.page.p50Ms)}, p99 ${ratio(search.lexical.page.p99Ms, search.minisearch.page.p99Ms)}`,
  );
}

if (wanted('gateway')) {
  const compareCli = process.env.CAPSTAN_BENCH_COMPARE;
  const gateway = await benchGatewayThroughput(cli, { compareCli });
  console.log(
    `\nGateway: POST /tools/call (time_now), each call its own requestId, autocannon in this process, ${gateway.connections} connections, ` +
      `${gateway.rounds} interleaved rounds of ${gateway.seconds} s; capstan serve at its default log level with the ledger durable; ${loadAverage()}`,
  );
  console.table(Object.fromEntries(gateway.rows.map((row) => [row.name, serverRow(row)])));
  console.log(`capstan/bare: throughput ${fixed(gateway.throughputRatio, 2)}; server CPU per request, bare/capstan: ${fixed(gateway.cpuRatio, 2)}`);
}

if (wanted('ledger')) {
  const full = await benchLedgerAppends('FULL');
  const normal = await benchLedgerAppends('NORMAL');
  console.log('\nLedger appends (hash chain, HMAC digests, keyed checkpoint, WAL) against plain INSERTs of the same rows and indexes,');
  console.log('with synchronous = FULL (the default: a commit survives a power loss; the group commit flushes the WAL itself, off the event loop; plain INSERTs let SQLite flush) and NORMAL (a killed process only)');
  const row = (shape: 'serial' | 'burst') => ({
    'FULL ledger/s': fixed(full[shape].ledger, 0),
    'FULL plain/s': fixed(full[shape].plain, 0),
    'NORMAL ledger/s': fixed(normal[shape].ledger, 0),
    'NORMAL plain/s': fixed(normal[shape].plain, 0),
    'ledger FULL/NORMAL': fixed(full[shape].ledger / normal[shape].ledger, 2),
  });
  console.table({ [`serial, each durable (${full.serial.count})`]: row('serial'), [`burst, one commit (${full.burst.count})`]: row('burst') });
  console.log(`verifying the whole chain (${full.verifiedEntries} entries): ${fixed(full.verifyMs, 0)} ms`);
  const sealing = (run: typeof full) =>
    `p50 ${fixed(run.checkpoint.p50Us)} µs, mean ${fixed(run.checkpoint.meanUs)} µs, ${fixed(100 * run.checkpoint.share, 1)}% of the serial run under ${run.synchronous}`;
  console.log(`checkpoint (ledger.head rewritten in place once per commit), ${full.checkpoint.writes} writes in the serial run: ${sealing(full)}; ${sealing(normal)}`);

  const gateway = await benchLedgerThroughput(bench);
  console.log(
    `\nGateway with the ledger durable (as shipped), unflushed (synchronous = NORMAL: survives a killed process only) and off (no appends, no digests): ` +
      `POST /tools/call (time_now), each host in a child process, autocannon in this one, 10 connections, ${gateway.rounds} interleaved rounds of ${gateway.seconds} s; ${loadAverage()}`,
  );
  console.table({ 'ledger durable': serverRow(gateway.durable), 'ledger unflushed': serverRow(gateway.unflushed), 'ledger off': serverRow(gateway.off) });
  console.log(`throughput ratio durable/unflushed: ${fixed(gateway.overUnflushed, 2)}; durable/off: ${fixed(gateway.overOff, 2)}`);

  const delay = await benchEventDelay();
  console.log(
    `\nEvent delay, call_finished appended → its event at an SSE client (the group commit and its flush included), ${delay.calls} calls, ${delay.inFlight} in flight: ` +
      `p50 ${fixed(delay.p50Ms, 2)} ms, p99 ${fixed(delay.p99Ms, 2)} ms, max ${fixed(delay.maxMs, 2)} ms`,
  );
}

if (wanted('mcp')) {
  // More rounds narrow the ratio's spread on a host whose speed drifts (CAPSTAN_BENCH_MCP_ROUNDS).
  const paths = await benchMcpPaths(cli, Number(process.env.CAPSTAN_BENCH_MCP_ROUNDS ?? 5));
  console.log(
    `\nMCP: server-everything's echo, ${paths.clients} SDK v2 clients over Streamable HTTP, one call in flight each, ${paths.rounds.length} interleaved rounds of ${paths.secondsPerRound} s: ` +
      `directly; through supergateway (a bare stdio → HTTP bridge); through capstan serve's /mcp as an agent (capability_call by reference, every call durable in the ledger), telemetry off and on (OTLP to a sink); ` +
      `supergateway and Capstan reach server-everything over stdio; ${loadAverage()}`,
  );
  const side = (figures: { callsPerSecond: number; p50Ms: number; p99Ms: number }) => `${fixed(figures.callsPerSecond, 0)}/s p50 ${fixed(figures.p50Ms, 2)} p99 ${fixed(figures.p99Ms, 1)}`;
  console.table(Object.fromEntries(paths.rounds.map((round, index) => [`round ${index + 1}`, Object.fromEntries(MCP_PATHS.map((path) => [path, side(round[path])]))])));
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const of = (path: (typeof MCP_PATHS)[number], figure: 'callsPerSecond' | 'p50Ms' | 'p99Ms') => mean(paths.rounds.map((round) => round[path][figure]));
  /** The mean of each round's ratio to supergateway, and the rounds' range: how far one run's figure can be trusted. */
  const againstBridge = (path: (typeof MCP_PATHS)[number]) => {
    const ratios = paths.rounds.map((round) => round[path].callsPerSecond / round.supergateway.callsPerSecond);
    return `${fixed(mean(ratios), 2)} (${fixed(Math.min(...ratios), 2)}–${fixed(Math.max(...ratios), 2)})`;
  };
  console.table(
    Object.fromEntries(
      MCP_PATHS.map((path) => [
        path,
        {
          'calls/s': fixed(of(path, 'callsPerSecond'), 0),
          'p50 ms': fixed(of(path, 'p50Ms'), 2),
          'p99 ms': fixed(of(path, 'p99Ms'), 1),
          '× supergateway (rounds)': againstBridge(path),
          'p50 added over direct ms': fixed(mean(paths.rounds.map((round) => round[path].p50Ms - round.direct.p50Ms)), 2),
          'server CPU ms/call': fixed(mean(paths.rounds.map((round) => round[path].serverCpuMsPerCall)), 3),
        },
      ]),
    ),
  );
  console.log(
    `telemetry adds per call: ${fixed(mean(paths.rounds.map((round) => 1000 / round['capstan+telemetry'].callsPerSecond - 1000 / round.capstan.callsPerSecond)) * paths.clients, 3)} ms ` +
      `(${fixed(mean(paths.rounds.map((round) => round['capstan+telemetry'].callsPerSecond / round.capstan.callsPerSecond)), 2)}× the calls/s with it off)`,
  );
  const serve = await benchMcpServe(cli);
  console.log(
    `capstan serve with ${serve.servers} stdio servers: listening after ${fixed(serve.listeningMs, 0)} ms, every server's tools listed after ${fixed(serve.allListedMs, 0)} ms; ` +
      `the SDK client connecting to and listing the same servers at once: ${fixed(serve.directMs, 0)} ms`,
  );
  console.log(`then POST /tools/call (everything:echo), autocannon, 10 connections, 7.5 s: ${fixed(serve.http.callsPerSecond, 0)} calls/s, p99 ${serve.http.p99Ms} ms`);
}

if (wanted('mcp-server')) {
  const mcp = await benchMcpServer(cli);
  console.log(`\nMCP server: capability_call of time_now over POST /mcp against POST /tools/call, autocannon, ${mcp.connections} connections, ${mcp.rounds} interleaved rounds of ${mcp.seconds} s`);
  const rest = mcp.rows[0]!;
  console.table(
    Object.fromEntries(
      mcp.rows.map((row) => [
        row.name,
        {
          'calls/s': fixed(row.perSecond, 0),
          'ratio to REST': fixed(row.perSecond / rest.perSecond, 2),
          'server CPU ms/call': fixed(row.cpuMsPerCall, 3),
          'REST CPU / this': fixed(rest.cpuMsPerCall / row.cpuMsPerCall, 2),
          'worst p99 ms': row.p99Ms,
        },
      ]),
    ),
  );
}

if (wanted('console')) {
  const ui = await benchConsoleSearch(cli);
  const kb = (bytes: number) => `${fixed(bytes / 1024)} KB`;
  console.log(`\nConsole in Chromium: ${ui.capabilities} capabilities, keystroke in the search box → updated list painted, ${ui.queries} queries`);
  console.table({
    'keystroke → paint, console': { 'p50 ms': fixed(ui.p50Ms), 'p95 ms': fixed(ui.p95Ms), 'max ms': fixed(ui.maxMs) },
    'the same, a bare page (baseline)': { 'p50 ms': fixed(ui.baseline.p50Ms), 'p95 ms': fixed(ui.baseline.p95Ms), 'max ms': fixed(ui.baseline.maxMs) },
  });
  console.log(`console/bare page: p50 ${fixed(ui.p50Ms / ui.baseline.p50Ms, 2)}, p95 ${fixed(ui.p95Ms / ui.baseline.p95Ms, 2)}; the bare page's keystroke → request sent p50 ${fixed(ui.baseline.sentP50Ms)} ms, request sent → answer read p50 ${fixed(ui.baseline.answerP50Ms)} ms, answer → list changed ${fixed(ui.baseline.toChangeP50Ms)} ms, → painted ${fixed(ui.baseline.toPaintP50Ms)} ms; ${loadAverage()}`);
  console.log(`first list painted ${fixed(ui.firstListMs, 0)} ms after navigation; page JS heap ${fixed(ui.heapMB)} MB; ${ui.rowsInDom} rows in the DOM`);
  console.log(`search answers: p50 ${kb(ui.searchAnswer.p50Bytes)}, largest ${kb(ui.searchAnswer.maxBytes)}; keystroke → request sent p50 ${fixed(ui.searchAnswer.sentP50Ms)} ms; request sent → answer read p50 ${fixed(ui.searchAnswer.p50Ms)} ms, p95 ${fixed(ui.searchAnswer.p95Ms)} ms; answer → list changed p50 ${fixed(ui.searchAnswer.toChangeP50Ms)} ms, → painted ${fixed(ui.searchAnswer.toPaintP50Ms)} ms`);
  const work = ui.pageWork;
  console.log(`the page's work per keystroke (Chromium's counters): tasks ${fixed(work.taskMs)} ms, of which script ${fixed(work.scriptMs)} ms, style ${fixed(work.styleMs)} ms, layout ${fixed(work.layoutMs)} ms`);
  const change = ui.catalogChange;
  console.log(
    `one capability revoked by another client: shown after ${fixed(change.shownMs, 0)} ms; ${change.events} catalog event(s), ${kb(change.eventBytes)}; ` +
      `${change.catalogReads} GET /catalog read(s), ${kb(change.catalogReadBytes)}`,
  );
}

if (wanted('startup')) {
  const start = await benchStartup(cli, { compareCli: process.env.CAPSTAN_BENCH_COMPARE });
  console.log(`\nStart-up: capstan serve on a fresh data dir, spawn → first GET /tools 200 / console line / every skill in GET /catalog, median of 3 (builds taking turns); RSS after that catalog read; load average ${start.loadAverage.map((load) => fixed(load, 2)).join(', ')}`);
  console.table(
    Object.fromEntries(
      start.runs.map((run) => [
        `${run.cli}, ${run.skills.toLocaleString('en')} skills`,
        { 'first /tools ms': fixed(run.firstToolsMs, 0), 'console line ms': fixed(run.consoleLineMs, 0), 'catalog complete ms': fixed(run.catalogCompleteMs, 0), 'RSS MB': fixed(run.rssMB, 0) },
      ]),
    ),
  );
  console.log(`capstan --help, median of 5: ${Object.entries(start.helpMs).map(([name, ms]) => `${name} ${fixed(ms, 0)} ms`).join(', ')}`);
}
