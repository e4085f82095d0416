/** What a restart needs from the ledger: the calls a task started that have no recorded end. */
import type { LedgerEntry } from '../../shared/ledger';
import type { Ledger } from './ledger';

export function unendedCalls(ledger: Ledger, taskId: string): LedgerEntry[] {
  const all = (kind: 'call_started' | 'call_finished') => {
    const entries: LedgerEntry[] = [];
    for (let page = ledger.query({ taskId, kind, limit: 1000 }); page.length > 0; page = ledger.query({ taskId, kind, after: page.at(-1)!.seq, limit: 1000 })) {
      entries.push(...page);
    }
    return entries;
  };
  const ended = new Set(all('call_finished').map((entry) => entry.requestId));
  return all('call_started').filter((entry) => !ended.has(entry.requestId));
}
