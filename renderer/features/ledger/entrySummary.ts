/**
 * One line saying what a ledger entry records, and how it went: shared with `capstan ledger tail`
 * (shared/ledgerSummary.ts). What a principal means is the console's own.
 */
export { entrySummary, entryTone } from '../../../shared/ledgerSummary';

/** What a principal means, for a tooltip; entries written before principals existed name none. */
export function principalTitle(principal: string | null): string {
  if (principal === null) return 'written before entries named their principal';
  if (principal === 'operator') return 'the operator: the console, or the gateway’s own token';
  if (principal === 'system') return 'the gateway itself (restart recovery)';
  return `an agent, with the token named ${principal.slice('agent:'.length)}`;
}
