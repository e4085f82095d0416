/**
 * The composition root: one host per data dir, shared by the Electron main process and
 * `capstan serve`. It owns the store, the catalog, the tasks and the API handlers every
 * transport uses.
 *
 * About 420 lines, kept whole: it is the one place that says in what order the parts start, what
 * a start that fails part-way undoes, and in what order they stop; split, that order would be
 * read across files.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import pino from 'pino';
import { Catalog } from './catalog/catalog';
import { CatalogViews } from './catalog/catalogView';
import { toolPolicy, type ToolPolicy } from './catalog/toolPolicy';
import { Cursors } from './catalog/cursor';
import { wideOpenAllowances } from './allowEntry';
import { ConfigError, readConfig, RESTART_SETTINGS, watchConfig, type CapstanConfig } from './config';
import { createApiHandlers, dispatch, type ApiHandlers } from './services/api';
import { Approvals } from './services/approvals';
import { ServerAsks } from './services/serverAsks';
import { CallService } from './services/calls';
import { Challenges } from './services/challenges';
import { Confirmation } from './services/confirmation';
import { Pins } from './services/pins';
import { agentOfSession, assertWithinQuota } from './services/quotas';
import { createDiscovery } from './services/discovery';
import { EventBus, progressReporter } from './services/events';
import { ResourceService } from './services/resources';
import { HarnRuns } from './harn/runs';
import type { Logger } from './logger';
import { builtinProvider, DestinationPolicy } from './providers/builtin';
import { OAuthRegistry } from './providers/mcp/oauth/registry';
import type { Encrypter } from './providers/mcp/oauth/tokenStore';
import { McpServers } from './providers/mcp/servers';
import { mcpSettings } from './providers/mcp/settings';
import { skillsProvider } from './providers/skills';
import { Ledger, loadLedgerKey } from './runtime/ledger';
import { TaskRuntime } from './runtime/runtime';
import { AgentTokens } from './store/agentTokens';
import { ExecutionHistory } from './store/executionHistory';
import { readCatalogPolicy } from './store/catalogPolicy';
import { openDatabase, type Database } from './store/database';
import { lockDataDir } from './store/dataDirLock';
import { PinStore } from './store/pinStore';
import { TaskStore } from './store/taskStore';
import { feedTelemetry, streamLedger } from './services/telemetryFeeds';
import { resolveTelemetrySettings } from './telemetry/settings';
import { startTelemetry, type Telemetry } from './telemetry/telemetry';

export interface HostOptions {
  dataDir: string;
  /** Skills directories besides `<data dir>/skills` and those in config.json. */
  skillsDirs?: readonly string[];
  logger?: Logger;
  /**
   * Load the skills after `createHost` returns: the gateway can answer with the builtins at
   * once while thousands of SKILL.md files are read (`catalog.loading()` names the skills
   * meanwhile, `catalog.whenLoaded()` waits). `capstan serve` does; by default the host starts
   * with its skills loaded.
   */
  skillsInBackground?: boolean;
  /** Watch config.json and apply an edit made while the gateway runs (default true; see `watchConfigEdits`). */
  watchConfig?: boolean;
  /** Seals URL servers' OAuth tokens at rest (Electron's safeStorage, from main.ts); without it the files' owner-only mode guards them. */
  oauthEncrypter?: Encrypter;
  /** Shows a sign-in's authorization URL to the person: Electron opens the system browser, `capstan serve` prints it (the console shows it too). */
  presentSignIn?: (server: string, url: string) => void;
  /** Opens a page a server asked the operator to visit (URL elicitation) in the system browser: the desktop app's, whose window opens none. */
  openPage?: (url: string) => void;
}

export interface Host {
  dataDir: string;
  /** The configuration in effect: the settings that change live are replaced in it when config.json is edited. */
  config: CapstanConfig;
  db: Database;
  catalog: Catalog;
  /** The operator's catalog view as it changes: each event's delta, and the view's entity tag. */
  catalogViews: CatalogViews;
  ledger: Ledger;
  tasks: TaskRuntime;
  events: EventBus;
  mcp: McpServers;
  /** URL servers' OAuth: sign-in, sign-out, each server's state (tokens stay inside). */
  oauth: OAuthRegistry;
  /** Harn scripts running as tasks; their children end with the host. */
  harn: HarnRuns;
  /** Agent tokens: the HTTP gateway's token check reads them on every request. */
  agents: AgentTokens;
  /** Agents' calls waiting for the operator; the MCP entry and the Electron shell listen to its events. */
  approvals: Approvals;
  /** What MCP servers ask of the operator during calls (elicitation, sampling); the console and Approvals show them. */
  asks: ServerAsks;
  /** Recent executions: the operator's own calls with their arguments and results (never in the ledger). */
  history: ExecutionHistory;
  /** OpenTelemetry export: traces, the ledger as a log stream, metrics (off unless configured). */
  telemetry: Telemetry;
  handlers: ApiHandlers;
  logger: Logger;
  /**
   * Cancels the calls still running (each ends on record, within the grace period), then ends
   * every MCP server process Capstan started, commits the ledger and closes the database; resolves
   * once the processes are gone. With no call running, all but that wait happens before it returns.
   */
  close(): Promise<void>;
}

export async function createHost({ dataDir, skillsDirs = [], logger = pino({ level: 'silent' }), skillsInBackground = false, watchConfig: watching = true, oauthEncrypter, presentSignIn, openPage }: HostOptions): Promise<Host> {
  const config = readConfig(dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const unlock = lockDataDir(dataDir, 'run a gateway');
  let db: Database;
  try {
    db = openDatabase(dataDir);
  } catch (error) {
    unlock();
    throw error;
  }
  // Before the ledger opens, so that its stream begins with the first entry this process writes.
  const telemetry = await startTelemetry(resolveTelemetrySettings(config.telemetry)).catch((error: unknown) => {
    db.close();
    unlock();
    throw error;
  });
  // Both replaced when config.json's toolPolicy or httpCheck.allow is edited (watchConfigEdits).
  let policy: ToolPolicy = toolPolicy(config.toolPolicy);
  const destinations = new DestinationPolicy(config.httpCheck.allow);
  const catalog = new Catalog({ toolPolicy: (contract) => policy(contract) });
  // A new toolPolicy in effect: an edit of config.json (watchConfigEdits) and a server's policy
  // saved from the console (McpServers.setPolicy, which wrote the file) take this one path.
  const applyToolPolicy = async (rules: CapstanConfig['toolPolicy']): Promise<void> => {
    policy = toolPolicy(rules);
    config.toolPolicy = [...rules];
    // Every tool's contract is tightened again as its provider is read again (skills have no tools).
    await Promise.all(catalog.providers().filter((provider) => provider.kind !== 'skills').map((provider) => catalog.reload(provider.name)));
  };
  const events = new EventBus();
  let ledger: Ledger;
  let stopLedgerStream = () => {};
  let pins: Pins;
  // Assigned once, below, but read by the MCP servers' `ask` before then: it cannot be a const.
  // eslint-disable-next-line prefer-const
  let asks: ServerAsks | undefined;
  // A sign-in or sign-out reconnects the server, now with (or without) its tokens.
  const reconnectIfEnabled = (name: string) => void (catalog.isEnabled(name) && mcp.reconnect(name));
  const oauth: OAuthRegistry = new OAuthRegistry({
    dir: join(dataDir, 'oauth'),
    encrypter: oauthEncrypter,
    log: logger.child({ component: 'oauth' }),
    onSignedIn: reconnectIfEnabled,
    onSignedOut: reconnectIfEnabled,
    settingsOf: (name) => {
      const entry = mcp.entry(name);
      return entry && mcpSettings(name, entry);
    },
    presentSignIn,
  });
  const mcp = new McpServers({
    dataDir,
    catalog,
    oauth,
    graceMs: config.cancellation.graceMs,
    log: logger.child({ component: 'mcp' }),
    progressFor: (requestId, capability) => progressReporter(events, ledger)(requestId, capability),
    toolPolicy: { rules: () => config.toolPolicy, apply: applyToolPolicy },
    publish: (event) => events.publish(event),
    // Set below, before any call can run (a server asks only during one).
    ask: (request, signal) => (asks ? asks.ask(request, signal) : Promise.reject(new Error('the gateway is still starting'))),
  });
  // The ledger once it has opened, for a start that fails after that.
  let opened: Ledger | undefined;
  /** Undoes what the start did so far, for a start that fails: the processes, the database, the data dir's lock. */
  const abandon = async (error: unknown): Promise<never> => {
    await mcp.close({ now: true });
    void catalog.close();
    stopLedgerStream();
    // What was appended before the failure (a recovery, a server's pins) is kept, not rolled back.
    try {
      opened?.flush();
    } catch {
      // The start failed already; a ledger that cannot flush adds nothing to that.
    }
    db.close();
    unlock();
    await telemetry.shutdown();
    throw error;
  };
  try {
    ledger = opened = new Ledger(db, loadLedgerKey(dataDir, db));
    stopLedgerStream = streamLedger(telemetry, ledger);
    // Before any MCP server loads: its tools are pinned, or held when they changed (services/pins.ts).
    pins = new Pins({ store: new PinStore(db), ledger, catalog, acceptsNewTools: (name) => mcp.entry(name)?.acceptNewTools === true });
    catalog.holdWith(pins.check);
    const ownSkills = join(dataDir, 'skills');
    mkdirSync(ownSkills, { recursive: true });
    // The console's switches and revocations outlive restarts and win over config.json's start state.
    const policy = readCatalogPolicy(db);
    const enabled = (name: string) => policy.providers[name] ?? !config.disabledProviders.includes(name);
    const builtins = builtinProvider({ db, dataDir, destinations });
    await catalog.addProvider(builtins, { enabled: enabled(builtins.name) });
    const skills = skillsProvider([ownSkills, ...config.skillsDirs, ...skillsDirs], config.skills);
    await catalog.addProvider(skills, { enabled: enabled(skills.name), background: skillsInBackground });
    // MCP servers connect in the background: the start does not wait for a slow or broken one.
    await mcp.start(config.mcpServers, config.disabledProviders);
    for (const id of policy.revoked) catalog.setRevoked(id, true);
  } catch (error) {
    return abandon(error);
  }
  const warnWideOpen = (allow: readonly string[]) => {
    const reasons = wideOpenAllowances(allow);
    for (const reason of reasons) logger.warn({ setting: 'httpCheck.allow' }, reason);
    catalog.setGatewayDiagnostics('httpCheck.allow', reasons);
  };
  warnWideOpen(config.httpCheck.allow);
  const catalogViews = new CatalogViews(catalog);
  catalog.onChange((change) => {
    logger.info(change, 'catalog changed');
    events.publish(catalogViews.event(change));
  });
  const tasks = new TaskRuntime(catalog, ledger, new TaskStore(db), {
    // Read as each task starts: a configured MCP server's tools are granted like the builtins,
    // and a grants entry for `<server>:*` or anything narrower can lower that.
    get grants() {
      return [...mcp.names().map((name) => ({ pattern: `${name}:*`, authority: 'execute' as const })), ...config.grants];
    },
    // An agent's session adds agentGrants (by default: not the operator's notes and to-dos). A
    // server's default grant covers only its tools for an agent: its resources and prompts may
    // hold the operator's text, so grants or agentGrants must name them (`<server>:resource.*`…).
    grantsFor(sessionId: string) {
      if (!agentOfSession(sessionId)) return this.grants;
      const toolsOnly = mcp.names().map((name) => ({ pattern: `${name}:*`, authority: 'execute' as const, kind: 'tool' as const }));
      return [...toolsOnly, ...config.grants, ...config.agentGrants];
    },
    // Read as each task starts, like the grants: an edit of config.json applies to new tasks.
    get budget() {
      return config.admission;
    },
    graceMs: config.cancellation.graceMs,
    admitTask: (sessionId) => {
      const agent = agentOfSession(sessionId);
      if (agent) assertWithinQuota(config.quotas, agent, 'tasks', tasks.unfinishedCount((id) => agentOfSession(id) === agent));
    },
  });
  // Before anyone can call: what the last process left unfinished is closed and on record.
  await tasks.recover().catch(abandon);
  ledger.onAppend((entry) => events.publish({ type: 'ledger', entry }));
  tasks.onChange((task) => events.publish({ type: 'task', task }));
  const discovery = createDiscovery({ catalog, tasks, cursors: new Cursors() });
  const agents = new AgentTokens(db);
  const approvals = new Approvals({
    ledger,
    timeoutMs: config.approvals.timeoutMs,
    quotas: config.quotas,
    publish: (approval) => events.publish({ type: 'approval', approval }),
  });
  asks = new ServerAsks({ ledger, timeoutMs: () => config.approvals.timeoutMs, publish: (ask) => events.publish({ type: 'ask', ask }), openPage });
  let history: ExecutionHistory;
  try {
    history = new ExecutionHistory({
      dataDir,
      db,
      log: logger.child({ component: 'executions' }),
      onChange: ({ revision, cleared }) => events.publish({ type: 'executions', revision, cleared }),
    });
  } catch (error) {
    return abandon(error);
  }
  const stopTelemetry = feedTelemetry({ telemetry, ledger, catalog, approvals });
  const confirmation = new Confirmation(new Challenges(), approvals);
  const calls = new CallService({ catalog, confirmation, tasks, ledger, history, telemetry });
  const resources = new ResourceService({ catalog, tasks, ledger, events });
  // Harn scripts call tools through the same dispatch as every other way in (a run starts only
  // once the handlers below exist).
  const harn = new HarnRuns({
    catalog,
    tasks,
    approvals,
    callTool: (input, context) => dispatch(handlers, 'callTool', input, context),
    logger: logger.child({ component: 'harn' }),
    config: config.harn,
    graceMs: config.cancellation.graceMs,
    events,
    telemetry,
  });
  const handlers = createApiHandlers({ db, catalog, calls, confirmation, approvals, asks, discovery, tasks, ledger, mcp, agents, harn, history, pins, resources, oauth, telemetry });
  const stopWatching = watching
    ? watchConfigEdits({ dataDir, config, catalog, mcp, logger, applyToolPolicy, destinations, warnWideOpen })
    : () => {};
  return {
    dataDir,
    config,
    db,
    catalog,
    catalogViews,
    ledger,
    tasks,
    events,
    mcp,
    oauth,
    agents,
    approvals,
    asks,
    harn,
    history,
    telemetry,
    handlers,
    logger,
    close: async () => {
      stopWatching();
      stopTelemetry();
      // A call cut off by the stop ends on record now, not as a fault when its server is gone and the database closed.
      const cutting = tasks.cancelRunningCalls('the gateway stopped');
      if (cutting) await cutting;
      // Synchronous from here up to each child's SIGTERM.
      const ending = Promise.all([resources.close(), mcp.close({ now: true }), catalog.close(), harn.close()]);
      // Waiting calls end with the gateway, recorded while the ledger is still open.
      approvals.close();
      asks?.close();
      ledger.flush();
      // After the flush, which announced the last entries: the stream holds them too.
      stopLedgerStream();
      history.close();
      db.close();
      unlock();
      // What is queued still goes out (within a bound), after the ledger's last entries.
      await Promise.all([ending, telemetry.shutdown()]);
    },
  };
}

interface ConfigEditParts {
  dataDir: string;
  /** The configuration in effect, changed in place: the runtime, approvals and quotas read it through getters or by reference. */
  config: CapstanConfig;
  catalog: Catalog;
  mcp: McpServers;
  logger: Logger;
  /** Replaces the toolPolicy in effect (config.toolPolicy too) and reads every provider's tools again. */
  applyToolPolicy(rules: CapstanConfig['toolPolicy']): Promise<void>;
  destinations: DestinationPolicy;
  warnWideOpen(allow: readonly string[]): void;
}

/** The gateway's diagnostics about config.json, each source replaced as a whole. */
const CONFIG_INVALID = 'config.json';
const CONFIG_RESTART = 'config.json restart';

/**
 * Watches config.json and applies an edit made while the gateway runs: mcpServers, toolPolicy
 * and httpCheck.allow at once; grants, agentGrants, quotas and admission for the tasks, sessions
 * and approvals that begin after it. An edit that does not validate changes nothing: a gateway
 * diagnostic names the problem (until an edit fixes it) and the last good configuration stays.
 * A change to a setting read only at start (RESTART_SETTINGS) is said, in a diagnostic and the
 * log, to need a restart. The console's own writes (an MCP server saved) are read back and
 * change nothing, since what runs already matches them. Returns the function that stops it.
 */
function watchConfigEdits(parts: ConfigEditParts): () => void {
  const { config, catalog, logger } = parts;
  let closed = false;
  let editing = Promise.resolve();
  const invalid = (error: ConfigError) => {
    logger.warn({ setting: 'config.json' }, `config.json edit not applied: ${error.message}`);
    catalog.setGatewayDiagnostics(CONFIG_INVALID, [`${error.message} (this edit is not applied: the gateway keeps its last good configuration)`]);
  };
  const apply = async (): Promise<void> => {
    if (closed) return;
    let next: CapstanConfig;
    let servers: string[];
    try {
      next = readConfig(parts.dataDir);
      // First, since it may refuse the edit (a server named like a builtin provider) before changing anything.
      servers = await parts.mcp.applyConfig(next.mcpServers, next.disabledProviders);
    } catch (error) {
      if (error instanceof ConfigError) return invalid(error);
      throw error;
    }
    catalog.setGatewayDiagnostics(CONFIG_INVALID, []);
    const applied: string[] = servers.length > 0 ? ['mcpServers'] : [];
    config.mcpServers = next.mcpServers;
    const changed = <K extends keyof CapstanConfig>(key: K) => !isDeepStrictEqual(next[key], config[key]);
    for (const key of ['grants', 'agentGrants', 'admission'] as const) {
      if (!changed(key)) continue;
      Object.assign(config, { [key]: next[key] });
      applied.push(key);
    }
    if (changed('quotas')) {
      // In place: approvals and the MCP entry hold this object.
      Object.assign(config.quotas, next.quotas);
      applied.push('quotas');
    }
    if (changed('httpCheck')) {
      parts.destinations.allow(next.httpCheck.allow);
      config.httpCheck = next.httpCheck;
      parts.warnWideOpen(next.httpCheck.allow);
      applied.push('httpCheck');
    }
    if (changed('toolPolicy')) {
      // A server's policy saved from the console is already in effect: it reads back as no change.
      await parts.applyToolPolicy(next.toolPolicy);
      applied.push('toolPolicy');
    }
    // Saving a server from the console takes its name out of disabledProviders (its entry's
    // `enabled` is its switch from then on): that is no change waiting for a restart.
    const dropped = config.disabledProviders.filter((name) => !next.disabledProviders.includes(name));
    if (next.disabledProviders.every((name) => config.disabledProviders.includes(name)) && dropped.every((name) => parts.mcp.has(name))) {
      config.disabledProviders = next.disabledProviders;
    }
    const pending = RESTART_SETTINGS.filter((key) => changed(key));
    catalog.setGatewayDiagnostics(
      CONFIG_RESTART,
      pending.map((key) => `config.json: "${key}" changed; it applies after a restart (until then the gateway keeps the value it started with)`),
    );
    if (applied.length > 0) logger.info({ settings: applied, servers }, 'config.json edited: applied without a restart');
    if (pending.length > 0) logger.warn({ settings: pending }, `config.json edited: ${pending.join(', ')} changed; restart Capstan to apply`);
  };
  const stop = watchConfig(parts.dataDir, () => {
    editing = editing.then(apply).catch((error: unknown) => logger.error({ err: error }, 'config.json edit could not be applied'));
  });
  return () => {
    closed = true;
    stop();
  };
}
