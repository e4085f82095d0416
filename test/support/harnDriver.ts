/**
 * A stand-in for Harn, for tests: Harn itself is a Rust program these machines cannot install.
 * It is not a mock of Capstan: it knows nothing of Capstan and speaks only Harn's side of the
 * wire protocol (the design's protocols/harn-host.md, checked against Harn's ACP adapter and its
 * fixtures in burin-labs/harn crates/harn-serve): started as `<driver> serve acp <script>`, it
 * answers `initialize`, `session/new` and `session/prompt` on stdin/stdout as newline-delimited
 * JSON-RPC 2.0, logs on stderr, and while a prompt runs sends bridge requests with unsigned
 * integer ids, `session/update` notifications and permission requests, waiting for the host's
 * answers as Harn does (300 s for most; HARN_HOST_CALL_TIMEOUT_SECS only for host/call, terminal/*
 * and host/capabilities with a session: see timeoutFor).
 * `session/cancel` stops the prompt ("cancelled"); stdin closing ends the process.
 *
 * It plays two Harn versions (the scenario's "version"), each from Harn's own source: '0.7.50',
 * the snapshot `fetch` brings (crates/harn-serve/src/adapters/acp/mod.rs, crates/harn-vm/src/
 * llm/agent/tool_dispatch.rs, crates/harn-vm/src/bridge.rs), and '0.10' (default), harn-serve
 * 0.10.x (crates/harn-serve/src/adapters/acp/prompt.rs, inject.rs, tests/prompt_errors.rs).
 * Where the driver had to guess (the `owner` of a terminal, derived in Harn from its kind by a
 * table not read here), it says so.
 *
 * Where real Harn compiles the `.harn` file, the driver reads it as a scenario (JSON):
 *
 *   { "transcript": "/abs/file.jsonl",           every line in and out, and what the driver made of it
 *     "advertiseSteer": true,                     adds _meta.harn.sessionInject.modes ["steer"] to initialize (no Harn does; kept to show Capstan ignores it)
 *     "initialize": { ... },                      replaces initialize's whole answer (protocol tests)
 *     "ignoreCancel": true,                       keeps running after session/cancel (kill tests)
 *     "ignoreHitlRespond": true,                  never answers harn.hitl.respond (a broken or hostile child)
 *     "steps": [ step, ... ],
 *     "version": "0.7.50" | "0.10",
 *     "end": {} | { "terminal": "natural", "terminalClass"?, "stopReason"? } | { "error": "message", "terminalClass"? } }
 *
 * Steps (each may carry a "label" naming it in the transcript):
 *   { "stderr": text }                     a log line on stderr
 *   { "update": { sessionUpdate, ... } }   a session/update notification
 *   { "request": method, "params"?, "id"?: "<raw id text>" }   a bridge request; waits for its answer
 *   { "toolCall": name, "args"?: {...} }   builtin_call `{ name, args: [payload], sessionId }`
 *   { "permission": toolCall, "declaredPaths"?, "mutationScope"?, "subAgent"?: sessionId, "policyDecision"? }
 *                                          session/request_permission in the version's shape (newer: with
 *                                          allow and reject options; v0.7.50: none, and its reading of the answer)
 *   { "toolSearch": query, "candidates": [names], "strategy"? }   tool_search/query, read as Harn does (tool_names, diagnostic)
 *   { "skillMatch": prompt, "candidates": [{ name, description, when_to_use, paths }], "workingFiles"? }
 *                                          skill/match, read as Harn does (ranked by score; fallback on error)
 *   { "hitl": "ask_user", "prompt", "default"? } · { "hitl": "request_approval", "action", "args"?, "quorum"?, "reviewers"? }
 *                                          harn.hitl.requested, then waits ("timeoutMs", default 20 s) for harn.hitl.respond
 *   { "skillsList": true } · { "skillsFetch": id }   skills/list (skills) and skills/fetch (the raw result)
 *   { "raw": line }                        any line, malformed ones included
 *   { "replay": "/abs/fixture.json" }      the messages of one of Harn's fixture files (test/fixtures/harn/), in order
 *   { "sleep": ms } · { "waitForCancel": true } · { "waitForSteer": true } · { "waitForSecondSteer": true } · { "exit": code }
 * Steps no Harn takes, for a broken or hostile child:
 *   { "burst": step, "count": N }          N copies of a step started at once; the next step does not wait for them
 *   { "stopReading": true }                reads nothing more from stdin (what the host writes piles up)
 * A request step with "exitAfter": ms exits (code "exitCode", default 3) while it waits for its
 * answer. An answer that is an error is recorded as Harn categorises it (-32001 "rejected",
 * anything else "host error"); with "orFail": true it fails the prompt, as an uncaught throw
 * fails a Harn pipeline.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';

type Json = Record<string, unknown>;
interface Scenario {
  transcript?: string;
  /**
   * Which Harn to play (default '0.10'). '0.7.50' is the snapshot `fetch` brings
   * (crates/harn-serve/src/adapters/acp/mod.rs at v0.7.50); '0.10' the newer harn-serve files
   * (crates/harn-serve/src/adapters/acp/prompt.rs, inject.rs, tests/prompt_errors.rs).
   */
  version?: '0.7.50' | '0.10';
  advertiseSteer?: boolean;
  initialize?: Json;
  ignoreCancel?: boolean;
  ignoreHitlRespond?: boolean;
  steps?: Json[];
  /**
   * How the prompt ends. Without `terminal` it is a pipeline that ran no agent_loop: newer Harn
   * answers `{ stopReason: "end_turn" }`, v0.7.50 `{ stopReason: "completed" }`. `terminal` (newer
   * only) is the agent_loop's outcome, `_meta.harn.terminal`. `error` fails the prompt (-32000;
   * newer builds add data `{ schema: "harn.acp.prompt_error.v1", terminalClass }`).
   */
  end?: { terminal?: string; terminalReason?: string; terminalClass?: string; stopReason?: string; error?: string };
}

const scriptPath = process.argv.at(-1)!;
const scenario = JSON.parse(readFileSync(scriptPath, 'utf8')) as Scenario;
const version = scenario.version ?? '0.10';
const legacy = version === '0.7.50';
function record(entry: Json): void {
  if (scenario.transcript) appendFileSync(scenario.transcript, `${JSON.stringify({ at: Date.now(), ...entry })}\n`);
}

// The W3C trace context the host handed this process (OpenTelemetry's environment carrier), as
// Harn's OTLP tracing would take it: written down so a test can follow the trace into the run.
if (process.env.TRACEPARENT) record({ environment: { TRACEPARENT: process.env.TRACEPARENT } });

/** Ids keep their source text (Harn's are u64): a response must echo them exactly. */
const parse = (line: string): unknown =>
  JSON.parse(line, function (this: unknown, key, value, context?: { source?: string }) {
    return key === 'id' && typeof value === 'number' && context?.source ? { rawId: context.source } : value;
  });
const idText = (id: unknown): string => (typeof id === 'object' && id !== null && 'rawId' in id ? String((id as { rawId: string }).rawId) : JSON.stringify(id));

function send(text: string): void {
  record({ dir: 'out', line: text });
  process.stdout.write(`${text}\n`);
}
const respond = (id: unknown, body: Json) => send(`{"jsonrpc":"2.0","id":${idText(id)},${JSON.stringify(body).slice(1, -1)}}`);

const sessions = new Set<string>();
const pending = new Map<string, { method: string; resolve(message: Json): void }>();
let nextId = 1000;
let cancelled = false;
let prompting = false;
const wakers = new Set<() => void>();
const wake = () => {
  for (const waker of wakers) waker();
  wakers.clear();
};
const steers: Json[] = [];

/**
 * How long Harn waits for an answer, or undefined for no limit. v0.7.50 crates/harn-vm/src/bridge.rs
 * `call`: a fixed DEFAULT_TIMEOUT of 300 s (builtin_call, host/tools/list, tool_search/query,
 * skill/match, skills/*, host/capabilities {}, and there the permission request too). Newer builds
 * send the permission request without a timeout. crates/harn-serve/src/adapters/acp/mod.rs
 * host_call_timeout: HARN_HOST_CALL_TIMEOUT_SECS, else 300 s for host/call and 60 s, applies only
 * to the client calls: host/capabilities { sessionId }, host/call and terminal/*.
 */
function timeoutFor(method: string, params: Json): number | undefined {
  const clientCall = method === 'host/call' || method.startsWith('terminal/') || (method === 'host/capabilities' && params.sessionId !== undefined);
  if (!clientCall) return method === 'session/request_permission' && !legacy ? undefined : 300_000;
  const configured = Number(process.env.HARN_HOST_CALL_TIMEOUT_SECS);
  if (Number.isInteger(configured) && configured > 0) return configured * 1000;
  return method === 'host/call' ? 300_000 : 60_000;
}

/** A bridge request to the host; resolves with its response message, or a synthetic error as Harn makes one. */
function call(method: string, params: Json, rawId?: string): Promise<Json> {
  if (cancelled) return Promise.resolve({ error: { code: null, message: 'Cancelled' } });
  const id = rawId ?? String(nextId++);
  send(`{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`);
  return new Promise((resolve) => {
    const limit = timeoutFor(method, params);
    const timer =
      limit === undefined
        ? undefined
        : setTimeout(() => {
            pending.delete(id);
            resolve({ error: { code: null, message: `Client did not respond to '${method}' within ${limit / 1000}s` } });
          }, limit);
    pending.set(id, { method, resolve: (message) => (clearTimeout(timer), resolve(message)) });
  });
}

/** Checks a response as Harn's dispatcher reads it, and says how a script would see it. */
function categorise(method: string, message: Json): Json {
  const violations: string[] = [];
  if (message.jsonrpc !== '2.0') violations.push('jsonrpc is not "2.0"');
  if (('result' in message) === ('error' in message)) violations.push('needs exactly one of result and error');
  const error = message.error as Json | undefined;
  if (error && (typeof error.code !== 'number' || !Number.isInteger(error.code) || typeof error.message !== 'string')) violations.push('error needs an integer code and a string message');
  if (violations.length > 0) record({ violation: violations.join('; '), method, message });
  if (!error) return { method, category: 'ok', result: message.result };
  return { method, category: error.code === -32001 ? 'rejected' : 'host error', error };
}

async function runStep(step: Json, sessionId: string): Promise<string | undefined> {
  if (typeof step.stderr === 'string') process.stderr.write(`${step.stderr}\n`);
  else if (step.update) send(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: step.update } }));
  else if (typeof step.raw === 'string') {
    // A raw request still gets its answer matched, so the transcript says what came back.
    const id = /"id":(\d+|"[^"]*")/.exec(step.raw)?.[1];
    if (id && /"method":/.test(step.raw)) pending.set(id, { method: 'raw', resolve: (message) => record({ step: step.label ?? 'raw', raw: step.raw, answer: message }) });
    send(step.raw);
  }
  else if (typeof step.replay === 'string') {
    // One of Harn's own fixture files (test/fixtures/harn/), message for message, in order. Its
    // placeholder session ("session-1") becomes the prompt's session; a message without one keeps none.
    const { messages } = JSON.parse(readFileSync(step.replay, 'utf8')) as { messages: Json[] };
    for (const message of messages) {
      const params = message.params as Json | undefined;
      const session = params?.sessionId === 'session-1' ? { params: { ...params, sessionId } } : {};
      send(JSON.stringify({ ...message, ...session }));
    }
  }
  else if (step.burst) {
    for (let copy = 0; copy < Number(step.count ?? 1); copy += 1) void runStep(step.burst as Json, sessionId);
  }
  else if (step.stopReading) process.stdin.pause();
  else if (typeof step.sleep === 'number') await new Promise((resolve) => setTimeout(resolve, step.sleep as number));
  else if (typeof step.exit === 'number') process.exit(step.exit);
  else if (step.waitForCancel) await until(() => cancelled);
  else if (step.waitForSteer) await until(() => steers.length > 0 || cancelled);
  else if (step.waitForSecondSteer) await until(() => steers.length > 1 || cancelled);
  else if (typeof step.toolSearch === 'string') record({ step: step.label ?? 'tool_search/query', ...(await toolSearch(step)) });
  else if (typeof step.skillMatch === 'string') record({ step: step.label ?? 'skill/match', ...(await skillMatch(step)) });
  else if (step.skillsList) record({ step: step.label ?? 'skills/list', ...(await skillsList()) });
  else if (typeof step.hitl === 'string') record({ step: step.label ?? step.hitl, ...(await hitl(step)) });
  else if (typeof step.skillsFetch === 'string') {
    // crates/harn-vm/src/bridge.rs fetch_host_skill: `{ id }`, the raw JSON handed on as it is.
    record({ step: step.label ?? 'skills/fetch', ...categorise('skills/fetch', await call('skills/fetch', { id: step.skillsFetch })) });
  }
  else if (typeof step.request === 'string' || typeof step.toolCall === 'string' || step.permission) {
    const [method, params] = step.permission
      ? ['session/request_permission', permissionParams(step, sessionId)]
      : typeof step.toolCall === 'string'
        ? ['builtin_call', { name: step.toolCall, args: [step.args ?? {}], sessionId }]
        : [step.request as string, (step.params as Json | undefined) ?? {}];
    // A child that dies while its request is in flight.
    if (typeof step.exitAfter === 'number') setTimeout(() => process.exit(Number(step.exitCode ?? 3)), step.exitAfter);
    const outcome = categorise(method, await call(method, params, step.id as string | undefined));
    if (step.permission) {
      const answer = (outcome.result ?? {}) as { outcome?: { outcome?: string; optionId?: string } | string; granted?: unknown; reason?: unknown };
      if (legacy) {
        // v0.7.50 (tool_dispatch.rs): outcome.outcome, or a bare string outcome, "selected" or
        // "allow" grants, whatever the optionId; so does granted: true. An error denies.
        const said = typeof answer.outcome === 'string' ? answer.outcome : answer.outcome?.outcome;
        outcome.allowed = outcome.category === 'ok' && (said === 'selected' || said === 'allow' || answer.granted === true);
        if (!outcome.allowed) outcome.reason = typeof answer.reason === 'string' ? answer.reason : 'host did not grant approval';
      } else {
        // Newer: fail closed, anything but the allow option (an error, reject, cancelled) is a refusal.
        const selected = typeof answer.outcome === 'object' ? answer.outcome : undefined;
        outcome.allowed = selected?.outcome === 'selected' && selected.optionId === 'allow';
      }
    }
    record({ step: step.label ?? method, ...outcome });
    if (step.orFail && (outcome.category !== 'ok' || outcome.allowed === false)) {
      const error = outcome.error as Json | undefined;
      return error ? (outcome.category === 'rejected' ? `Tool rejected: ${String(error.message)}` : `Host error (${String(error.code)}): ${String(error.message)}`) : 'permission denied';
    }
  }
  return undefined;
}

/**
 * A `tool_search` with strategy "host" or "semantic" (crates/harn-vm/src/llm/agent/
 * tool_search_client.rs run_strategy and parse_host_response, the same in v0.7.50 and 0.10.x):
 * `{ strategy, query, candidates: [names] }`; Harn reads `tool_names` (or `result.tool_names`),
 * strings only, and `diagnostic`; an error or a missing array is an empty result with a diagnostic.
 */
async function toolSearch(step: Json): Promise<Json> {
  const params = { strategy: step.strategy ?? 'host', query: step.toolSearch, candidates: step.candidates ?? [] };
  const outcome = categorise('tool_search/query', await call('tool_search/query', params));
  if (outcome.category !== 'ok') return { ...outcome, tool_names: [], diagnostic: `host tool_search/query failed: ${String((outcome.error as Json).message)}` };
  const value = (outcome.result ?? {}) as Json;
  const names = value.tool_names ?? (value.result as Json | undefined)?.tool_names;
  if (!Array.isArray(names)) return { ...outcome, tool_names: [], diagnostic: 'host tool_search/query response missing `tool_names` array' };
  return { ...outcome, tool_names: names.filter((name) => typeof name === 'string'), diagnostic: typeof value.diagnostic === 'string' ? value.diagnostic : null };
}

/**
 * An agent_loop's skill match with strategy "host" (crates/harn-vm/src/llm/agent/skill_match.rs
 * score_via_bridge, both versions): `{ strategy, prompt, working_files, candidates: [{ name,
 * description, when_to_use, paths }] }`; Harn reads `matches` (or `skills`, `result.matches`, a
 * bare array), skips entries without a name, defaults score 1.0 and reason "host match", and
 * sorts by score. An error falls back to its own metadata ranker (`fallback: true` here).
 */
async function skillMatch(step: Json): Promise<Json> {
  const candidates = ((step.candidates as Json[] | undefined) ?? []).map((c) => ({ name: c.name ?? '', description: c.description ?? '', when_to_use: c.when_to_use ?? '', paths: c.paths ?? [] }));
  const params = { strategy: step.strategy ?? 'host', prompt: step.skillMatch, working_files: step.workingFiles ?? [], candidates };
  const outcome = categorise('skill/match', await call('skill/match', params));
  if (outcome.category !== 'ok') return { ...outcome, fallback: true };
  const value = outcome.result as unknown;
  const object = (typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}) as Json;
  const list = object.matches ?? object.skills ?? (object.result as Json | undefined)?.matches ?? (Array.isArray(value) ? value : []);
  const ranked = (Array.isArray(list) ? (list as Json[]) : [])
    .map((entry) => ({ name: typeof entry.name === 'string' ? entry.name : '', score: typeof entry.score === 'number' ? entry.score : 1.0, reason: typeof entry.reason === 'string' ? entry.reason : 'host match' }))
    .filter((entry) => entry.name !== '')
    .sort((a, b) => b.score - a.score);
  return { ...outcome, ranked };
}

/**
 * ask_user / request_approval (crates/harn-vm/src/stdlib/hitl.rs, both versions): the bridge
 * notification `harn.hitl.requested` with the request envelope, then a wait for the host's
 * `harn.hitl.respond` (answered in receive below). A question completes with `answer` (nil when
 * absent); an approval counts `approved: true` only with a `reviewer` (quorum 1) and is denied by
 * any other response (ApprovalDeniedError, `reason` its message). Ends at the step's `timeoutMs`.
 */
const hitlWaiting = new Map<string, (response: Json) => void>();
async function hitl(step: Json): Promise<Json> {
  const question = step.hitl === 'ask_user';
  const requestId = `hitl_${question ? 'question' : 'approval'}_${randomUUID()}`;
  const payload = question
    ? { prompt: step.prompt, schema: null, default: step.default ?? null, timeout_ms: 86_400_000 }
    : { id: requestId, action: step.action, args: step.args ?? null, principal: '', requested_at: new Date().toISOString(), approvers_required: step.quorum ?? 1, evidence_refs: [], undo_metadata: null, capabilities_requested: [], detail: null, quorum: step.quorum ?? 1, reviewers: step.reviewers ?? [], deadline_ms: 86_400_000 };
  const envelope = { request_id: requestId, kind: question ? 'question' : 'approval', agent: '', trace_id: `trace_${randomUUID()}`, requested_at: new Date().toISOString(), payload };
  send(JSON.stringify({ jsonrpc: '2.0', method: 'harn.hitl.requested', params: envelope }));
  for (const deadline = Date.now() + Number(step.timeoutMs ?? 20_000); ; ) {
    const response = await new Promise<Json | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()));
      hitlWaiting.set(requestId, (message) => (clearTimeout(timer), resolve(message)));
    });
    hitlWaiting.delete(requestId);
    if (!response) return { hitl: 'timed out', requestId };
    if (question) return { hitl: 'answered', requestId, answer: response.answer ?? null, response };
    // Approved without a reviewer does not count towards the quorum: the request stays open.
    if (response.approved === true && typeof response.reviewer === 'string') return { hitl: 'approved', requestId, response };
    if (response.approved !== true) return { hitl: 'denied', requestId, error: { name: 'ApprovalDeniedError', message: typeof response.reason === 'string' ? response.reason : 'approval was denied' }, response };
  }
}

/** crates/harn-vm/src/bridge.rs list_host_skills: `{}`; an array or `{ skills: [...] }`, anything else an error. */
async function skillsList(): Promise<Json> {
  const outcome = categorise('skills/list', await call('skills/list', {}));
  if (outcome.category !== 'ok') return outcome;
  const value = outcome.result as unknown;
  const skills = Array.isArray(value) ? value : (value as Json | null)?.skills;
  return Array.isArray(skills) ? { ...outcome, skills } : { ...outcome, category: 'host error', error: { message: 'skills/list: host response must be an array or { skills: [...] }' } };
}

/**
 * A permission step's params. v0.7.50 (crates/harn-vm/src/llm/agent/tool_dispatch.rs, RequiresHostApproval):
 * `{ sessionId, approvalRequest, toolCall: { toolCallId, toolName, rawInput }, mutation, declaredPaths,
 * declaredPathEntries }`, no options; `sessionId` is the agent loop's session, a sub-agent's when
 * it runs one (step.subAgent: its session id, with `mutation.parent_session_id` the run's session).
 * The approvalRequest's fields follow crates/harn-vm/src/stdlib/hitl.rs approval_request_for_host_permission.
 * Newer: an ACP tool_call_update with Harn's extras under `_meta.harn`, and allow/reject options.
 */
function permissionParams(step: Json, sessionId: string): Json {
  const call = step.permission as Json;
  const toolName = String(call.toolName ?? call.title ?? 'tool');
  if (!legacy) {
    return {
      sessionId,
      toolCall: { sessionUpdate: 'tool_call_update', ...call, _meta: { harn: { toolName, approvalRequest: { id: call.toolCallId, action: toolName }, policyDecision: step.policyDecision ?? 'requires_host_approval' } } },
      options: PERMISSION_OPTIONS,
    };
  }
  const subAgent = typeof step.subAgent === 'string' ? step.subAgent : undefined;
  const session = subAgent ?? sessionId;
  const declaredPaths = (step.declaredPaths as string[] | undefined) ?? [];
  return {
    sessionId: session,
    approvalRequest: { id: call.toolCallId, action: toolName, args: call.rawInput ?? {}, principal: session, evidence_refs: [], undo_metadata: null, capabilities_requested: [`tool.${toolName}`] },
    toolCall: { toolCallId: call.toolCallId, toolName, rawInput: call.rawInput ?? {} },
    mutation: { session_id: session, parent_session_id: subAgent ? sessionId : null, run_id: null, worker_id: null, execution_kind: null, mutation_scope: step.mutationScope ?? 'apply_workspace', approval_policy: { require_approval: [toolName] } },
    declaredPaths,
    declaredPathEntries: declaredPaths.map((path) => ({ path })),
  };
}

const PERMISSION_OPTIONS = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

function until(done: () => boolean): Promise<void> {
  return done() ? Promise.resolve() : new Promise((resolve) => wakers.add(() => void until(done).then(resolve)));
}

async function prompt(id: unknown, params: Json): Promise<void> {
  const sessionId = String(params.sessionId);
  if (!sessions.has(sessionId)) return respond(id, { error: { code: -32602, message: `Unknown session: ${sessionId}` } });
  prompting = true;
  cancelled = false;
  record({ prompt: params.prompt });
  // Harn asks for the host's capabilities as a prompt starts, with and without the session.
  record(categorise('host/capabilities', await call('host/capabilities', {})));
  record(categorise('host/capabilities', await call('host/capabilities', { sessionId })));
  let failure: string | undefined;
  for (const step of scenario.steps ?? []) {
    if (cancelled && !scenario.ignoreCancel) break;
    failure = await runStep(step, sessionId);
    if (failure) break;
  }
  prompting = false;
  if (cancelled && !scenario.ignoreCancel) {
    // v0.7.50 (acp/mod.rs handle_session_prompt): `{ stopReason: "cancelled" }`. Newer
    // (acp/prompt.rs cancelled_prompt_result): a cancel carries its terminal, kind user_cancelled.
    return respond(id, { result: legacy ? { stopReason: 'cancelled' } : { stopReason: 'cancelled', _meta: { harn: { terminal: { kind: 'user_cancelled', reason: 'session/cancel', owner: 'user' } } } } });
  }
  const end = scenario.end ?? {};
  if (failure || end.error) {
    // Both versions' send_prompt_error: an "Error: …" message chunk, then the -32000 error.
    const message = failure ?? end.error!;
    send(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `Error: ${message}\n` } } } }));
    const data = legacy ? {} : { data: { schema: 'harn.acp.prompt_error.v1', terminalClass: end.terminalClass ?? 'generic_throw' } };
    return respond(id, { error: { code: -32000, message, ...data } });
  }
  if (legacy) return respond(id, { result: { stopReason: end.stopReason ?? 'completed' } });
  // Newer (acp/prompt.rs): "end_turn" and no _meta unless an agent_loop sealed an outcome.
  if (!end.terminal) return respond(id, { result: { stopReason: end.stopReason ?? 'end_turn' } });
  const terminal = { kind: end.terminal, reason: end.terminalReason ?? end.terminal, owner: end.terminal === 'natural' ? 'agent' : 'harness' /* a guess: Harn derives it from the kind */, ...(end.terminalClass ? { terminalClass: end.terminalClass } : {}) };
  respond(id, { result: { stopReason: end.stopReason ?? 'end_turn', _meta: { harn: { terminal } } } });
}

function receive(line: string): void {
  record({ dir: 'in', line });
  let message: Json;
  try {
    message = parse(line) as Json;
  } catch {
    return record({ violation: 'a line that is not JSON' });
  }
  if (message.method === undefined && message.id !== undefined) {
    // Harn matches answers by their u64 id: an answer with a null id (to a line it could not read) matches nothing.
    if (message.id === null) return record({ ignored: message });
    const waiting = pending.get(idText(message.id));
    if (!waiting) return record({ violation: `a response to id ${idText(message.id)}, which is not pending`, message });
    pending.delete(idText(message.id));
    return waiting.resolve(message);
  }
  const params = (message.params ?? {}) as Json;
  switch (message.method) {
    case 'initialize':
      return respond(message.id, { result: scenario.initialize ?? initializeAnswer() });
    case 'session/new': {
      const sessionId = randomUUID();
      sessions.add(sessionId);
      return respond(message.id, { result: { sessionId, modes: [{ id: 'default', name: 'Default', description: 'Execute harn pipelines' }] } });
    }
    case 'session/prompt':
      void prompt(message.id, params);
      return;
    case 'session/cancel':
      if (sessions.has(String(params.sessionId))) cancelled = true;
      record({ cancelled: true, prompting });
      return wake();
    case 'session/inject': {
      // v0.7.50's dispatcher (acp/mod.rs handle_incoming_message) has no session/inject: -32601.
      if (legacy) break;
      // Newer (acp/inject.rs handle_session_inject, tests/prompt_errors.rs): a request.
      if (typeof params.sessionId !== 'string') return respond(message.id, { error: { code: -32602, message: 'session/inject requires sessionId' } });
      if (!prompting || !sessions.has(params.sessionId)) return respond(message.id, { error: { code: -32004, message: `session/inject: no active prompt for session ${params.sessionId}` } });
      if (!['queue', 'steer', 'finish_step', 'interrupt_immediate', 'wait_for_completion'].includes(String(params.mode ?? 'queue'))) {
        return respond(message.id, { error: { code: -32602, message: `session/inject: invalid mode ${JSON.stringify(params.mode)}` } });
      }
      if (typeof params.content !== 'string' || params.content === '') return respond(message.id, { error: { code: -32602, message: 'session/inject: content must be a non-empty string' } });
      steers.push(params);
      record({ steer: params, via: 'session/inject' });
      respond(message.id, { result: { messageId: `msg-${steers.length}`, status: 'accepted', _meta: { harn: { actor: null } } } });
      return wake();
    }
    case 'harn.hitl.respond': {
      // v0.7.50 acp/mod.rs handle_hitl_respond: params are a HitlHostResponse (serde: request_id a
      // string; approved, accepted booleans; reviewer, reason, responded_at strings), else -32602;
      // a request id of no known kind is -32000; otherwise { ok: true }.
      const types: [string, string][] = [['request_id', 'string'], ['approved', 'boolean'], ['accepted', 'boolean'], ['reviewer', 'string'], ['reason', 'string'], ['responded_at', 'string'], ['signature', 'string']];
      const wrong = types.find(([field, type]) => (field === 'request_id' ? typeof params[field] !== type : params[field] !== undefined && params[field] !== null && typeof params[field] !== type));
      if (wrong) return respond(message.id, { error: { code: -32602, message: `Invalid harn.hitl.respond params: ${wrong[0]}` } });
      const requestId = String(params.request_id);
      if (!/^hitl_(question|approval|dual_control|escalation)_/.test(requestId)) return respond(message.id, { error: { code: -32000, message: `unknown HITL request id '${requestId}'` } });
      record({ hitlResponse: params });
      if (scenario.ignoreHitlRespond) return;
      respond(message.id, { result: { ok: true } });
      hitlWaiting.get(requestId)?.(params);
      return;
    }
    case 'session/input':
    case 'user_message':
    case 'agent/user_message':
      // v0.7.50 (acp/mod.rs handle_session_input, crates/harn-vm/src/bridge.rs): queued for the
      // running prompt, never answered, even when sent with an id. Newer builds do not take it here.
      if (!legacy || typeof params.content !== 'string' || params.content === '') break;
      steers.push(params);
      record({ steer: params, via: message.method });
      return wake();
    default:
      break;
  }
  if (message.id !== undefined) respond(message.id, { error: { code: -32601, message: `Method not found: ${String(message.method)}` } });
}

function initializeAnswer(): Json {
  const harn: Json = {
    sessionUpdateExtensions: ['fs_watch', 'handoff', 'log', 'progress', 'skill_activated', 'skill_deactivated', 'skill_scope_tools', 'tool_search_query', 'tool_search_result', 'transcript_compacted', 'worker_update'],
    extensionContract: 'docs/src/bridge-protocol.md#acp-compatibility-contract',
    ...(scenario.advertiseSteer ? { sessionInject: { modes: ['steer'] } } : {}),
  };
  return {
    protocolVersion: 1,
    agentCapabilities: { _meta: { harn }, promptCapabilities: {}, sessionCapabilities: { fork: {}, load: {} } },
    // A scenario that names no version plays 0.10 under the driver's own version string.
    agentInfo: { name: 'harn', version: scenario.version === '0.7.50' ? '0.7.50' : scenario.version === '0.10' ? '0.10.8' : '0.0.0-driver' },
  };
}

let buffered = '';
process.stdin.setEncoding('utf8').on('data', (chunk: string) => {
  const lines = (buffered + chunk).split('\n');
  buffered = lines.pop() ?? '';
  for (const line of lines) if (line.trim() !== '') receive(line.trim());
});
// Harn's stdin loop ends when the host closes it, and with it the server.
process.stdin.on('end', () => process.exit(0));
process.stderr.write('[harn] ACP workflow server ready on stdio\n');
