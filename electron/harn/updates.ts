/**
 * What the console shows of a run: Harn's stderr, its `session/update` stream and Capstan's own
 * notes, as one-line updates. Bounded three ways, since a script may be chatty or hostile: each
 * line is cut to HARN_UPDATE_TEXT_LIMIT characters, a run keeps its last HARN_UPDATES_KEPT
 * lines, and changes reach the event bus in batches (at most one per BATCH_MS, each with at most
 * BATCH_LINES lines; a client that was told lines were skipped reads the run again).
 */
import { clipText, HARN_UPDATES_KEPT, type HarnUpdate, type HarnUpdateKind } from '../../shared/harn';

export const BATCH_MS = 100;
export const BATCH_LINES = 50;

export interface UpdateBatch {
  updates: HarnUpdate[];
  /** Lines that changed in this batch but are not in it (read the run to see them). */
  skipped: number;
}

export class UpdateLog {
  #lines: HarnUpdate[] = [];
  #dropped = 0;
  #seq = 0;
  /** Lines a later update changes in place: a streaming message, a tool call by its id. */
  #open = new Map<string, HarnUpdate>();
  #changed = new Map<number, HarnUpdate>();
  #timer: NodeJS.Timeout | undefined;
  #said = '';

  constructor(private readonly publish: (batch: UpdateBatch) => void) {}

  get lines(): HarnUpdate[] {
    return [...this.#lines];
  }

  get dropped(): number {
    return this.#dropped;
  }

  /** Everything the agent said (its message chunks, whatever came between them), up to the last 2,000 characters. */
  get said(): string {
    return this.#said;
  }

  add(kind: HarnUpdateKind, text: string, extra: Pick<HarnUpdate, 'status' | 'requestId'> = {}): void {
    // A new line ends the message being streamed: the next chunk starts a new one.
    this.#open.delete('message');
    this.#open.delete('thought');
    this.#push({ seq: ++this.#seq, at: new Date().toISOString(), kind, text: clipText(text), ...extra });
  }

  /** A chunk of streamed text: appended to the line being streamed, else a new line. */
  stream(kind: 'message' | 'thought', chunk: string): void {
    if (kind === 'message') this.#said = (this.#said + chunk).slice(-2_000);
    const open = this.#open.get(kind);
    if (open && this.#lines.includes(open)) {
      open.text = clipText(open.text + chunk);
      this.#changedLine(open);
      return;
    }
    this.add(kind, chunk);
    this.#open.set(kind, this.#lines.at(-1)!);
  }

  /** A tool call's line, kept under its id so its updates change it in place. */
  toolCall(toolCallId: string, text: string | undefined, status: string | undefined): void {
    const key = `tool:${toolCallId}`;
    const open = this.#open.get(key);
    if (open && this.#lines.includes(open)) {
      if (text) open.text = clipText(text);
      if (status) open.status = status;
      this.#changedLine(open);
      return;
    }
    this.add('tool_call', text ?? toolCallId, status ? { status } : {});
    this.#open.set(key, this.#lines.at(-1)!);
  }

  /** Sends what is pending now (the run ended: no later batch will come). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#changed.size === 0) return;
    const changed = [...this.#changed.values()];
    this.#changed.clear();
    this.publish({ updates: changed.slice(-BATCH_LINES).map((line) => ({ ...line })), skipped: Math.max(0, changed.length - BATCH_LINES) });
  }

  #push(line: HarnUpdate): void {
    this.#lines.push(line);
    if (this.#lines.length > HARN_UPDATES_KEPT) {
      const [gone] = this.#lines.splice(0, this.#lines.length - HARN_UPDATES_KEPT);
      this.#dropped += 1;
      if (gone) this.#changed.delete(gone.seq);
      if (this.#open.size > 64) this.#forgetClosedLines();
    }
    this.#changedLine(line);
  }

  #changedLine(line: HarnUpdate): void {
    this.#changed.set(line.seq, line);
    this.#timer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  /** Tool calls whose lines have scrolled out are not updated any more. */
  #forgetClosedLines(): void {
    const kept = new Set(this.#lines);
    for (const [key, line] of this.#open) if (!kept.has(line)) this.#open.delete(key);
  }
}

type Fields = Record<string, unknown>;
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const fields = (value: unknown): Fields => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {});

/**
 * One `session/update` into the log. Harn keeps its extensions' fields at the top level or under
 * `_meta.harn`; both are read. Unknown `sessionUpdate` values are ignored, as ACP asks.
 */
export function applySessionUpdate(log: UpdateLog, update: Fields): void {
  const harn = fields(fields(update._meta).harn);
  const field = (name: string) => update[name] ?? harn[name];
  switch (update.sessionUpdate) {
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      const content = fields(update.content);
      const chunk = text(content.text);
      if (chunk) log.stream(update.sessionUpdate === 'agent_message_chunk' ? 'message' : 'thought', chunk);
      return;
    }
    case 'tool_call':
    case 'tool_call_update': {
      const id = text(update.toolCallId);
      if (!id) return;
      const title = text(update.title) ?? text(field('toolName'));
      const kind = text(update.kind);
      const error = text(field('error'));
      const line = title ? `${title}${kind ? ` (${kind})` : ''}${error ? `: ${error}` : ''}` : undefined;
      log.toolCall(id, line, text(update.status));
      return;
    }
    case 'plan': {
      const entries = Array.isArray(update.entries) ? update.entries.map(fields) : [];
      const steps = entries.map((entry) => `${entry.status === 'completed' ? '✓' : entry.status === 'in_progress' ? '▸' : '○'} ${text(entry.content) ?? ''}`);
      log.add('plan', `Plan: ${steps.join(' · ') || '(empty)'}`);
      return;
    }
    case 'log': {
      const message = text(field('message'));
      if (message) log.add('log', `${text(field('level')) ?? 'info'}: ${message}`, { status: text(field('level')) ?? 'info' });
      return;
    }
    case 'progress': {
      const message = text(field('message')) ?? '';
      const phase = text(field('phase'));
      const done = field('progress');
      const total = field('total');
      const count = typeof done === 'number' ? ` (${done}${typeof total === 'number' ? `/${total}` : ''})` : '';
      log.add('progress', `${phase ? `${phase}: ` : ''}${message}${count}`);
      return;
    }
    default:
      return extensionUpdate(log, update.sessionUpdate, field);
  }
}

const list = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
const brief = (value: unknown, limit = 200): string => (typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value)).slice(0, limit);
const counted = (value: unknown, one: string, many = `${one}s`): string | undefined => (typeof value === 'number' ? `${value} ${value === 1 ? one : many}` : undefined);

/**
 * Harn's own `session/update` kinds (its initialize answer lists them as sessionUpdateExtensions,
 * plus hitl_request / hitl_resolved), read from the fixtures in crates/harn-serve/tests/fixtures/acp
 * (newer: fields under `_meta.harn`) and v0.7.50's conformance/protocols/fixtures/acp (top level).
 * One `harn` line each; an unknown kind is ignored.
 */
function extensionUpdate(log: UpdateLog, kind: unknown, field: (name: string) => unknown): void {
  const skill = text(field('skillName')) ?? 'a skill';
  const line = (() => {
    switch (kind) {
      case 'skill_activated':
        return `skill ${skill} activated${text(field('reason')) ? ` (${text(field('reason'))})` : ''}`;
      case 'skill_deactivated':
        return `skill ${skill} deactivated`;
      case 'skill_scope_tools':
        return `skill ${skill} scopes the tools to ${list(field('allowedTools')).join(', ') || '(none)'}`;
      case 'tool_search_query': {
        const query = fields(field('query'));
        return `tool search${text(field('strategy')) ? ` (${text(field('strategy'))})` : ''}: ${brief(query.q ?? field('query'))}`;
      }
      case 'tool_search_result':
        return `tool search found ${list(field('promoted')).join(', ') || 'nothing'}`;
      case 'transcript_compacted': {
        const before = field('estimatedTokensBefore');
        const after = field('estimatedTokensAfter');
        const tokens = typeof before === 'number' && typeof after === 'number' ? `, ~${before} → ${after} tokens` : '';
        return `transcript compacted${text(field('strategy')) ? ` (${text(field('strategy'))})` : ''}${counted(field('archivedMessages'), 'message') ? `: ${counted(field('archivedMessages'), 'message')} archived` : ''}${tokens}`;
      }
      case 'handoff': {
        const handoff = fields(field('handoff'));
        const target = fields(handoff.target_persona_or_human);
        return `handoff${text(target.label) ?? text(target.id) ? ` to ${text(target.label) ?? text(target.id)}` : ''}${text(handoff.task) ? `: ${text(handoff.task)}` : ''}${text(handoff.reason) ? ` (${text(handoff.reason)})` : ''}`;
      }
      case 'fs_watch': {
        const events = Array.isArray(field('events')) ? (field('events') as unknown[]).map(fields) : [];
        const changes = events.map((event) => `${[...list(event.relative_paths), ...(list(event.relative_paths).length ? [] : list(event.paths))].join(', ')}${text(event.kind) ? ` (${text(event.kind)})` : ''}`);
        return `files changed: ${changes.join('; ') || '(none)'}`;
      }
      case 'worker_update': {
        const name = text(field('workerName')) ?? text(field('workerId')) ?? 'a worker';
        const status = text(field('status'));
        return `worker ${name}${text(field('workerTask')) ? ` (${text(field('workerTask'))})` : ''}: ${text(field('event')) ?? 'update'}${status ? `, ${status}` : ''}`;
      }
      case 'hitl_request': {
        const payload = fields(field('payload'));
        return `Harn asks the host (${text(field('kind')) ?? 'hitl'}): ${brief(payload.prompt ?? payload.action ?? field('payload'))}`;
      }
      case 'hitl_resolved':
        return `${text(field('kind')) ?? 'hitl'} ${text(field('requestId')) ?? ''} ${text(field('outcome')) ?? 'resolved'}`.replace(/ {2,}/g, ' ');
      default:
        return undefined;
    }
  })();
  if (line) log.add('harn', line);
}

/**
 * The notifications Harn sends besides `session/update`. v0.7.50 (crates/harn-vm/src/bridge.rs
 * send_output, send_progress, send_log; crates/harn-vm/src/llm/agent/post_turn.rs): `output`
 * `{ text }`, `progress` `{ phase, message, progress?, total?, data? }`, `log` `{ level, message,
 * fields? }` and `agent/idle` `{ iteration, backoff_ms, persist_path, watch_paths }`, none with a
 * session. Newer builds: `_harn/agentEvent` `{ sessionId, kind, … }` (crates/harn-serve/tests/
 * fixtures/acp/agent_event_ext_notifications.json). Returns false for a method it does not know.
 */
export function applyNotification(log: UpdateLog, method: string, params: Fields): boolean {
  switch (method) {
    case 'output': {
      const said = text(params.text);
      if (said) log.add('output', said.replace(/\n$/, ''));
      return true;
    }
    case 'progress':
    case 'log':
      applySessionUpdate(log, { ...params, sessionUpdate: method });
      return true;
    case 'agent/idle': {
      const backoff = params.backoff_ms;
      const watching = list(params.watch_paths);
      const iteration = params.iteration;
      log.add('agent', `idle${typeof iteration === 'number' ? ` after iteration ${iteration}` : ''}${typeof backoff === 'number' ? `, next look in ${backoff} ms` : ''}${watching.length ? `, watching ${watching.slice(0, 10).join(', ')}` : ''}`, { status: 'idle' });
      return true;
    }
    case '_harn/agentEvent':
      log.add('agent', agentEventText(params), { status: text(params.kind)?.slice(0, 60) ?? 'event' });
      return true;
    default:
      return false;
  }
}

function agentEventText(event: Fields): string {
  const iteration = typeof event.iteration === 'number' ? ` ${event.iteration}` : '';
  switch (event.kind) {
    case 'turn_start':
      return `turn${iteration} started`;
    case 'turn_end': {
      const info = fields(event.turnInfo);
      const names = list(info.tool_names);
      return `turn${iteration} ended${counted(info.tool_calls, 'tool call') ? `: ${counted(info.tool_calls, 'tool call')}${names.length ? ` (${names.join(', ')})` : ''}` : ''}`;
    }
    case 'feedback_injected':
      return `feedback injected${text(event.feedbackKind) ? ` (${text(event.feedbackKind)})` : ''}: ${brief(event.content, 500)}`;
    case 'budget_exhausted':
      return `budget exhausted${counted(event.maxIterations, 'iteration') ? ` after ${counted(event.maxIterations, 'iteration')}` : ''}`;
    case 'loop_stuck':
      return `loop stuck${typeof event.lastIteration === 'number' ? ` at iteration ${event.lastIteration}` : ''}${counted(event.maxNudges, 'nudge') ? ` after ${counted(event.maxNudges, 'nudge')}` : ''}${text(event.tailExcerpt) ? `: ${text(event.tailExcerpt)}` : ''}`;
    case 'daemon_watchdog_tripped':
      return `daemon watchdog tripped${counted(event.attempts, 'attempt') ? ` after ${counted(event.attempts, 'attempt')}` : ''}${typeof event.elapsedMs === 'number' ? ` (${event.elapsedMs} ms)` : ''}`;
    default: {
      const { kind, sessionId: _session, ...rest } = event;
      return `${brief(kind, 100) || 'agent event'}${Object.keys(rest).length ? `: ${brief(rest, 500)}` : ''}`;
    }
  }
}
