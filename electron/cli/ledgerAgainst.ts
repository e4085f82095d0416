/**
 * `capstan ledger verify --against FILE`: does an exported audit stream (the ledger's OTLP log
 * records, as an OpenTelemetry Collector's file exporter writes them: one OTLP JSON export
 * request per line) hold the ledger's entries, unaltered and in order? The ledger is checked
 * first, as `verify` alone does: a stream can only be as good as the ledger it is checked against.
 */
import { readFileSync } from 'node:fs';
import type { LedgerEntry } from '../../shared/ledger';
import type { Ledger } from '../runtime/ledger';
import { entryHash } from '../runtime/ledgerChain';
import { checkStream, entriesFromOtlpJsonLines } from '../telemetry/ledgerStream';
import { err, out } from './terminal';

/** Prints the verdict; returns the exit code (0 the stream matches, 1 it does not, 2 it cannot be read). */
export function verifyAgainst(ledger: Ledger, file: string): number {
  let entries: LedgerEntry[];
  try {
    entries = entriesFromOtlpJsonLines(readFileSync(file, 'utf8'));
  } catch (error) {
    err(`capstan: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const at = (seq: number): LedgerEntry | undefined => ledger.query({ after: seq - 1, limit: 1 }).find((entry) => entry.seq === seq);
  const result = checkStream(entries, at, entryHash);
  if (result.ok) {
    const span = result.entries === 0 ? 'no ledger entries in it' : `entries #${result.firstSeq} to #${result.lastSeq}`;
    out(`stream ok: ${result.entries} entries match the ledger (${span})\n`);
    return 0;
  }
  out(`stream DIFFERS at seq ${result.brokenAt}: ${result.reason} (${result.entries} entries matched before it)\n`);
  return 1;
}
