/**
 * Every error code a Capstan client can see, with its HTTP status and meaning.
 * One table for the gateway, the IPC handlers, the console and the docs: docs/reference.md is
 * generated from it (`npm run docs`, build/reference.ts), so each code needs its meaning here.
 */
export const errorCodes = {
  BAD_REQUEST: {
    status: 400,
    meaning: 'Malformed JSON, a body that does not match the operation, a body that is not JSON, or a request that is not valid HTTP (a bad URL or header).',
  },
  UNAUTHORIZED: { status: 401, meaning: 'Missing or wrong `Authorization: Bearer <token>`.' },
  FORBIDDEN_ORIGIN: {
    status: 403,
    meaning:
      'The `Host` is not the bound loopback address or the `Origin` is foreign (DNS-rebinding defence); over IPC, the sender is not Capstan\'s own page.',
  },
  FORBIDDEN_FOR_AGENT: {
    status: 403,
    meaning:
      "The token is an agent's: agents discover and call, in their own sessions, but cannot confirm, approve, read the operator's views (catalog, settings, ledger, events) or change settings, the whitelist, grants, revocations, providers, MCP servers or tokens.",
  },
  AGENT_EXISTS: { status: 409, meaning: 'An agent of that name already has a token; revoke it first to give the name a new one.' },
  AGENT_NOT_FOUND: { status: 404, meaning: 'No agent of that name has a token (never created, or already revoked).' },
  NOT_FOUND: { status: 404, meaning: 'No such route, or no provider or MCP server of the name the path gives.' },
  METHOD_NOT_ALLOWED: { status: 405, meaning: 'The route exists but not with this method; the `Allow` header lists the ones it takes.' },
  REQUEST_TIMEOUT: { status: 408, meaning: 'The request was not received in full within 60 s.' },
  URI_TOO_LONG: { status: 414, meaning: 'A path parameter (an id: at most 128 characters) is over 384 characters as sent.' },
  HEADERS_TOO_LARGE: { status: 431, meaning: "The request line and headers are over Node's 16 KiB limit (a very long URL lands here too)." },
  CONSOLE_NOT_BUILT: {
    status: 503,
    meaning: 'The console page (`GET /`) was asked for, but this copy of Capstan has no built console; run `npm run build`, then start Capstan again. The API answers as usual.',
  },
  TOOL_NOT_FOUND: { status: 404, meaning: 'No tool is registered under exactly this name (no fuzzy matching).' },
  ARGUMENT_MISSING: { status: 400, meaning: 'A required argument is absent; the message is `ARGUMENT_MISSING: <field>`.' },
  ARGUMENT_INVALID: { status: 400, meaning: 'An argument does not match the input schema (JSON Schema 2020-12); the message and `field` name the field.' },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: 'The request body is over 1 MiB.' },
  CONFIRMATION_REQUIRED: {
    status: 428,
    meaning:
      'The tool needs confirmation and none (or an expired, used or mismatched one) was given; the body carries a new challenge.',
  },
  CONFIRMATION_DENIED: {
    status: 403,
    meaning:
      "An agent's call waited for the operator's approval and the operator denied it; the message carries the operator's note. Nothing ran. In the desktop app, also a change the window asked for (saving an MCP server or its policy, accepting a changed tool, answering a server's question, signing in, acknowledging an unknown outcome, starting a Harn script, creating an agent token, restoring or enabling what was switched off) that the operator did not approve in the system dialog, that was too long to review there, or that came while another awaited the operator's answer. Nothing changed.",
  },
  CONFIRMATION_EXPIRED: {
    status: 408,
    meaning: "An agent's call waited for the operator's approval longer than `approvals.timeoutMs` (120 s by default) and was not run.",
  },
  APPROVAL_NOT_FOUND: { status: 404, meaning: 'No approval with that id is pending or among the recent ones.' },
  APPROVAL_NOT_PENDING: { status: 409, meaning: 'The approval was already approved, denied, expired or withdrawn; `status` says which.' },
  ASK_NOT_FOUND: { status: 404, meaning: "No question from an MCP server (an elicitation or sampling request) with that id is pending or among the recent ones." },
  ASK_NOT_PENDING: { status: 409, meaning: 'The question from the MCP server was already answered, or expired, or was withdrawn (its call ended, or the server took it back); `status` says which.' },
  CAPABILITY_NOT_FOUND: { status: 404, meaning: "The reference names a capability that is not in the task's snapshot." },
  STALE_CAPABILITY: {
    status: 409,
    meaning:
      'The reference no longer matches the live capability; `part` says what changed (catalogGeneration, contractHash, bindingGeneration, binding). Discover it again.',
  },
  TOOL_NOT_LOADED: {
    status: 409,
    meaning:
      "A call by reference (MCP `capability_call`) names a tool that `tools_load` has not loaded into the task's context, or whose step has ended; load it first.",
  },
  PROVIDER_DISABLED: { status: 409, meaning: 'The capability\'s provider is disabled; this overrides every snapshot.' },
  PROVIDER_UNAVAILABLE: {
    status: 503,
    meaning:
      "The capability's provider (an MCP server) is not connected: still connecting, or failed (the message gives the reason; it is retried with backoff). Its tools stay listed; call again once it is ready. Nothing ran.",
  },
  MCP_SIGN_IN_REQUIRED: {
    status: 503,
    meaning:
      "The capability's provider is a URL MCP server that needs an OAuth sign-in: Capstan holds no tokens for it, the authorization server refused the refresh (a revoked or expired grant), or the server asks for more scope. The message says which. Sign in from the console (Providers, Sign in) or with `capstan mcp-servers login NAME`, then call again. Nothing ran.",
  },
  MCP_SIGN_IN_FAILED: {
    status: 502,
    meaning:
      "Signing in to a URL MCP server did not end with tokens; the message names why (resource mismatch: the server's protected resource metadata names another resource; issuer mismatch: the authorization server's metadata or answer names another issuer; retry limit reached: the server keeps asking for a scope the authorization server does not grant; the authorization server's refusal; no answer from the browser in time).",
  },
  CAPABILITY_REVOKED: { status: 403, meaning: 'The capability is revoked for everyone; this overrides every snapshot.' },
  NOT_GRANTED: { status: 403, meaning: 'The task\'s grant is below what the operation needs; `held` and `needed` name both levels.' },
  AUTHORITY_CEILING: { status: 403, meaning: 'A grant may only shrink during a task; raising it is refused.' },
  BAD_CURSOR: { status: 400, meaning: 'The cursor is malformed, tampered with, or from another query, task or snapshot.' },
  BUDGET_EXCEEDED: {
    status: 422,
    meaning: "Loading or activating would overflow the task's capability context; reports `need`, `margin`, `ceiling` and `inUse`.",
  },
  TASK_NOT_FOUND: { status: 404, meaning: 'No task or session with that id.' },
  TASK_ACTIVE: { status: 409, meaning: 'The session already has an active task: steer it, queue a follow-up or supersede it.' },
  TASK_NOT_ACTIVE: {
    status: 409,
    meaning: 'The task is not running (queued, blocked, cancelling, quiescing or finished): it takes no new calls or input.',
  },
  MUTATION_BLOCKED: {
    status: 423,
    meaning: 'A mutating call of this session ended with an unknown outcome; acknowledge it before another mutating call. Reads still run.',
  },
  CONTRACT_CHANGED: {
    status: 409,
    meaning:
      "An MCP server's tool changed what it says (its description, schemas, annotations…) since the operator pinned it, or appeared after the server was added: it is held, and nobody can load or call it until the operator reviews and accepts it (Held in the console, `capstan pins`). `hold` says which (`changed` or `new`), `changed` names the parts.",
  },
  LIMIT_REACHED: {
    status: 409,
    meaning:
      'Something holds the most it takes: a task (100 steers, 100 grant reductions), or an agent at one of its quotas (`quota`: mcpSessions, tasks, pendingApprovals; config.json `quotas`). `what` and `limit` name it; the message says how to free a place.',
  },
  NOTHING_TO_ACKNOWLEDGE: { status: 409, meaning: 'No mutating call with that requestId has an unknown outcome in the session.' },
  CALL_CANCELLED: {
    status: 409,
    meaning:
      "The call, or its task, was cancelled while the call ran, and the tool stopped (side effects are not rolled back), or its task stopped while the call waited for the operator's approval (nothing ran).",
  },
  CALL_NOT_FOUND: {
    status: 404,
    meaning: "No call with that requestId is running, and none with it has ended: nothing to cancel. To an agent, another principal's call, running or ended, is answered the same way.",
  },
  CALL_NOT_RUNNING: { status: 409, meaning: 'The call with that requestId already ended (`callStatus` says how); there is nothing to cancel.' },
  REQUEST_ID_IN_USE: {
    status: 409,
    meaning:
      "Another principal (the operator, another agent, a Harn script) already made a call with this requestId: a requestId names one principal's calls, so the ledger's trail, evidence checks and cancellation never mix two callers'. Nothing ran or was recorded; send another requestId, or none and the gateway makes one. The same principal may use its own requestId again.",
  },
  OUTCOME_UNKNOWN: {
    status: 504,
    meaning: 'The call neither finished nor acknowledged its cancellation or deadline within the grace period; its side effects are unknown.',
  },
  DESTINATION_REFUSED: {
    status: 403,
    meaning:
      'http_check will not connect to a loopback, private, link-local, multicast or other special-purpose address, however it is spelled or whatever the name resolves to, unless config.json allows it (`httpCheck.allow`); `host`, `address` and `range` say what was refused.',
  },
  TOOL_NOT_RUNNABLE: {
    status: 501,
    meaning:
      "The tool is listed but Capstan cannot run it (its contract says `runnable: false` and `notRunnableReason` why: an MCP server's tool that runs only as an MCP task, `execution.taskSupport: \"required\"`, which Capstan does not support yet). 501 rather than 409: no change of state makes it run, and retrying will not help. Refused before anything runs (nothing is recorded as started, the server is not called); `tools_load` refuses it too.",
  },
  TOOL_FAILED: {
    status: 500,
    meaning: "The tool threw or timed out (each tool has a deadline, 10 s by default; an MCP server's `timeoutMs` without an answer or progress); the gateway stays up.",
  },
  TOOL_ERROR: {
    status: 502,
    meaning:
      'The MCP server ran the tool and reported a failure (`isError`); `error.result` carries its answer (`content`, and `structuredContent` when sent) as the server sent it.',
  },
  RESULT_TOO_LARGE: {
    status: 502,
    meaning:
      "The tool's result (or a resource read's, a prompt's messages, a completion's values) is over its server's size limit (`maxResultBytes`, 4 MiB of JSON by default); `size` and `limit` say by how much. The call ran: its effects stand.",
  },
  HARN_UNAVAILABLE: {
    status: 503,
    meaning: 'config.json `harn.command` could not be started (no such program, or not executable); the message names the setting. The run\'s task is on record as failed.',
  },
  HARN_RUN_NOT_FOUND: { status: 404, meaning: 'No Harn run for that task id (the gateway keeps every run that has not ended and the last 50 that have).' },
  STEER_UNSUPPORTED: {
    status: 409,
    meaning: 'The task runs a Harn script that did not advertise `session/inject` with mode `steer` when it started, so it cannot take a steer; nothing was recorded.',
  },
  RESOURCE_NOT_FOUND: {
    status: 404,
    meaning:
      "No MCP server lists a resource with this URI or id, and no resource template of one matches the URI (among the servers given, and what the caller's grants let it discover). The resource may exist on the server unlisted: Capstan reads only what a server lists or a template describes.",
  },
  RESOURCE_AMBIGUOUS: {
    status: 409,
    meaning:
      'Several MCP servers list this URI (or several templates match it), or offer a prompt of this name: name the server (`server`, `--server`) or the catalog id (`<server>:resource.…`, `<server>:prompt.…`); `ids` lists the candidates. Nothing was read or got.',
  },
  PROMPT_NOT_FOUND: { status: 404, meaning: 'No MCP server offers a prompt of this name or id (among the servers given, and what the caller may discover).' },
  SERVER_FEATURE_UNSUPPORTED: {
    status: 501,
    meaning:
      "The MCP server does not declare what the request needs: resource subscriptions (`resources.subscribe`) or argument completions (`completions`). Nothing was sent to it.",
  },
  MCP_SERVER_ERROR: {
    status: 502,
    meaning:
      'The MCP server answered a resources/read, prompts/get, completion/complete or resources/subscribe with a JSON-RPC error (an unknown URI, a bad argument); `serverCode` and the message carry its code and words. For a read or get, recorded in the ledger like a failed call.',
  },
  LEDGER_UNAVAILABLE: {
    status: 503,
    meaning:
      'The ledger could not write to its database (the disk is full, or failing); the message gives SQLite\'s reason. What was on record before stays, and the chain goes on without a gap once writes succeed again. A call refused with it before its start was recorded did not run; after a failed write, each call waits for its start to be on disk before it runs, until writes succeed again. A call refused with it after its work ran did that work, but its end may not be on record.',
  },
  INTERNAL_ERROR: { status: 500, meaning: 'An unexpected gateway fault; the log line carries the requestId.' },
  TOO_MANY_STREAMS: {
    status: 503,
    meaning: '`GET /events` already has 32 streams open (the most it serves at once); close one or retry later. Other routes still answer.',
  },
  GATEWAY_UNREACHABLE: {
    status: 0,
    meaning:
      'Reported by the console, `capstan mcp` and `capstan tools`/`call`/`tasks` (exit code 3), never sent by the gateway: the request did not reach the gateway or its answer never came back (gateway stopped, network down). A tool call may or may not have run; look its requestId up in the ledger.',
  },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof errorCodes;

/**
 * An error that crosses a boundary with a code, a message and optional details. Its message
 * reads `CODE: what happened`, the form the README documents, so callers write only the second half.
 */
export class CapstanError extends Error {
  override readonly name = 'CapstanError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    options?: ErrorOptions,
  ) {
    super(`${code}: ${message}`, options);
  }

  /** The task the failure happened in, when the operation had joined one; the envelope names it. */
  taskId: string | undefined;

  /** How long the call ran, as its call_finished entry records it, when the failure is a call that ran. */
  durationMs: number | undefined;

  ranFor(durationMs: number): this {
    this.durationMs = durationMs;
    return this;
  }

  inTask(taskId: string | undefined): this {
    this.taskId ??= taskId;
    return this;
  }

  get status(): number {
    return errorCodes[this.code].status;
  }
}
