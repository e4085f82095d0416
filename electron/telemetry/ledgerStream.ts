/**
 * The ledger as an OpenTelemetry log stream, and the check of such a stream against the ledger.
 *
 * Each entry goes out once it is durable, in seq order, as one log record whose attributes are
 * the entry itself (its facts, digests and hash: the ledger holds no argument or result values,
 * so neither does the stream). A SIEM downstream gets the tamper-evident trail live; the ledger
 * stays the source of truth, and `capstan ledger verify --against FILE` checks what a collector
 * wrote (OTLP JSON, as the Collector's file exporter writes it: one export request per line)
 * against it.
 */
import type { AnyValueMap } from '@opentelemetry/api-logs';
import type { LedgerEntry } from '../../shared/ledger';

export const LEDGER_ATTRIBUTES = {
  seq: 'capstan.ledger.seq',
  kind: 'capstan.ledger.kind',
  at: 'capstan.ledger.at',
  hash: 'capstan.ledger.hash',
  prevHash: 'capstan.ledger.prev_hash',
  details: 'capstan.ledger.details',
  requestId: 'capstan.request_id',
  taskId: 'capstan.task_id',
  sessionId: 'capstan.session_id',
  capability: 'capstan.capability_id',
  principal: 'capstan.principal',
} as const;

export function ledgerLogAttributes(entry: LedgerEntry): AnyValueMap {
  const attributes: AnyValueMap = {
    [LEDGER_ATTRIBUTES.seq]: entry.seq,
    [LEDGER_ATTRIBUTES.kind]: entry.kind,
    [LEDGER_ATTRIBUTES.at]: entry.at,
    [LEDGER_ATTRIBUTES.hash]: entry.hash,
    [LEDGER_ATTRIBUTES.prevHash]: entry.prevHash,
    // Plain JSON: a check parses it and hashes the entry canonically again (entryHash), so the
    // stream needs no canonical form of its own, which would cost each entry a second pass.
    [LEDGER_ATTRIBUTES.details]: JSON.stringify(entry.details),
  };
  for (const field of ['requestId', 'taskId', 'sessionId', 'capability', 'principal'] as const) {
    if (entry[field] !== null) attributes[LEDGER_ATTRIBUTES[field]] = entry[field];
  }
  return attributes;
}

/** A stream's entry, rebuilt from one log record's attributes; null when the record is not a ledger entry. */
export function entryFromRecord(attributes: Record<string, unknown>): LedgerEntry | null {
  const seq = attributes[LEDGER_ATTRIBUTES.seq];
  const text = (key: string) => (typeof attributes[key] === 'string' ? (attributes[key] as string) : null);
  if (typeof seq !== 'number' || text(LEDGER_ATTRIBUTES.hash) === null) return null;
  let details: Record<string, unknown>;
  try {
    details = JSON.parse(text(LEDGER_ATTRIBUTES.details) ?? '{}') as Record<string, unknown>;
  } catch {
    details = { unreadable: text(LEDGER_ATTRIBUTES.details) };
  }
  return {
    seq,
    at: text(LEDGER_ATTRIBUTES.at) ?? '',
    kind: text(LEDGER_ATTRIBUTES.kind) as LedgerEntry['kind'],
    taskId: text(LEDGER_ATTRIBUTES.taskId),
    sessionId: text(LEDGER_ATTRIBUTES.sessionId),
    requestId: text(LEDGER_ATTRIBUTES.requestId),
    capability: text(LEDGER_ATTRIBUTES.capability),
    principal: text(LEDGER_ATTRIBUTES.principal),
    details,
    prevHash: text(LEDGER_ATTRIBUTES.prevHash) ?? '',
    hash: text(LEDGER_ATTRIBUTES.hash) ?? '',
  };
}

interface OtlpAnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

/** An OTLP JSON AnyValue as a plain value (int64s arrive as strings in OTLP JSON). */
function plain(value: OtlpAnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue;
}

/** Ledger entries from OTLP JSON log export requests, one per line (blank lines skipped), in the order written. */
export function entriesFromOtlpJsonLines(text: string): LedgerEntry[] {
  const entries: LedgerEntry[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    let request: { resourceLogs?: { scopeLogs?: { logRecords?: { attributes?: { key: string; value: OtlpAnyValue }[] }[] }[] }[] };
    try {
      request = JSON.parse(line) as typeof request;
    } catch {
      throw new Error(`line ${index + 1} is not JSON (an OTLP JSON export request per line is expected)`);
    }
    for (const resource of request.resourceLogs ?? [])
      for (const scope of resource.scopeLogs ?? [])
        for (const record of scope.logRecords ?? []) {
          const entry = entryFromRecord(Object.fromEntries((record.attributes ?? []).map(({ key, value }) => [key, plain(value)])));
          if (entry) entries.push(entry);
        }
  }
  return entries;
}

export type StreamCheck = { ok: true; entries: number; firstSeq: number | null; lastSeq: number | null } | { ok: false; entries: number; brokenAt: number; reason: string };

/**
 * Whether a stream's entries are the ledger's: each one as the ledger holds it at its seq (the
 * same hash, and content that hashes to it), in strictly increasing seq order. A stream may
 * start late and miss entries a full queue dropped; the gaps are allowed, an entry that differs
 * is not. The ledger itself is checked by `capstan ledger verify`.
 */
export function checkStream(stream: readonly LedgerEntry[], ledgerAt: (seq: number) => LedgerEntry | undefined, hashOf: (entry: Omit<LedgerEntry, 'hash'>) => string): StreamCheck {
  let previous = 0;
  for (const [index, entry] of stream.entries()) {
    const fail = (reason: string): StreamCheck => ({ ok: false, entries: index, brokenAt: entry.seq, reason });
    if (entry.seq <= previous) return fail(`entry #${entry.seq} arrives after #${previous}: out of order or repeated`);
    previous = entry.seq;
    const { hash, ...content } = entry;
    if (hashOf(content) !== hash) return fail(`entry #${entry.seq} was altered: its content does not hash to its hash`);
    const held = ledgerAt(entry.seq);
    if (!held) return fail(`entry #${entry.seq} is not in the ledger`);
    if (held.hash !== hash) return fail(`entry #${entry.seq} differs from the ledger's (hash ${hash.slice(0, 12)}…, the ledger's ${held.hash.slice(0, 12)}…)`);
  }
  return { ok: true, entries: stream.length, firstSeq: stream[0]?.seq ?? null, lastSeq: stream.at(-1)?.seq ?? null };
}
