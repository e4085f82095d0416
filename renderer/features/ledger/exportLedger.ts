/**
 * The Ledger view's export: every entry matching the view's filter, read from the gateway page
 * by page (not only the entries this window holds), one JSON object a line, oldest first, the
 * format `capstan ledger export` prints. A page holds at most MAX_EXPORT entries; past that the
 * export stops and says where, for the CLI to go on from.
 */
import { MAX_LEDGER_PAGE, type LedgerEntry, type LedgerPage, type LedgerQuery } from '../../../shared/ledger';
import type { LedgerFilter } from '../../state/ledgerStore';

/** The one operation an export needs (the console's transport has it), so this module needs no DOM. */
interface LedgerReader {
  getLedger(query: LedgerQuery, options?: { signal?: AbortSignal | undefined }): Promise<LedgerPage>;
}

/** Entries one export holds in the page's memory (about 0.5 KiB each). */
export const MAX_EXPORT = 100_000;

export interface LedgerExport {
  /** One entry a line, each line ending in a newline. */
  lines: string[];
  count: number;
  /** The seq of the last entry exported when MAX_EXPORT stopped it; null when every match is in. */
  stoppedAfter: number | null;
}

export async function exportLedger(
  transport: LedgerReader,
  filter: LedgerFilter,
  { signal, onProgress }: { signal?: AbortSignal; onProgress?(count: number): void } = {},
): Promise<LedgerExport> {
  const lines: string[] = [];
  let last: LedgerEntry | undefined;
  for (let after = 0; ; after = last.seq) {
    const page = await transport.getLedger({ ...filter, after, limit: MAX_LEDGER_PAGE }, { signal });
    for (const entry of page.entries) {
      if (lines.length === MAX_EXPORT) return { lines, count: lines.length, stoppedAfter: last?.seq ?? null };
      lines.push(`${JSON.stringify(entry)}\n`);
      last = entry;
    }
    onProgress?.(lines.length);
    if (!last || page.entries.length < MAX_LEDGER_PAGE) return { lines, count: lines.length, stoppedAfter: null };
  }
}

/** A file name that says what was exported and when: `capstan-ledger-requestId-abc-20261130-141028.jsonl`. */
export function exportFileName(filter: LedgerFilter, now = new Date()): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  const stamp = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  const parts = Object.entries(filter)
    .filter(([field, value]) => field !== 'match' && value !== undefined)
    .map(([field, value]) => `${field}-${String(value)}`);
  // Only characters every file system takes, and a bounded length.
  const what = parts.join('-').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
  return `capstan-ledger${what ? `-${what}` : ''}-${stamp}.jsonl`;
}
