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
      return;
  }
}
