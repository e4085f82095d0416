/**
 * `capstan ledger tail`'s lines for a person: seq, time, kind, principal, capability, requestId
 * and what the entry records (shared/ledgerSummary.ts, as the console's ledger grid says it).
 * Fixed widths for the short fields, so a followed tail lines up without knowing what comes next.
 * `--json` prints the entries whole instead.
 */
import type { LedgerEntry } from '../../shared/ledger';
import { entrySummary } from '../../shared/ledgerSummary';

export function ledgerLine(entry: LedgerEntry): string {
  return [
    `#${entry.seq}`.padStart(6),
    entry.at,
    entry.kind.padEnd(18),
    (entry.principal ?? '-').padEnd(9),
    entry.capability ?? '-',
    entry.requestId ?? '-',
    entrySummary(entry) || '-',
  ].join('  ');
}
