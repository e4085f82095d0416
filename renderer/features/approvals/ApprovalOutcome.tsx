/**
 * What an approved call did, beside the decision: its `call_finished` ledger entry, read from
 * the live ledger the console holds (features/ledger/ledgerFeed.ts), or asked of the gateway
 * once when the entry is older than what is held. Until it arrives the call is running.
 */
import { useQuery } from '@tanstack/react-query';
import type { LedgerEntry } from '../../../shared/ledger';
import { useTransport } from '../../api/hooks';
import { useLedger } from '../../state/ledgerStore';
import { Icon } from '../../ui/Icon';
import { outcomeLook } from '../ledger/callOutcome';

/** Per held list of entries, each request's call_finished: built once per batch, shared by every row. */
const finishedIndexes = new WeakMap<readonly LedgerEntry[], Map<string, LedgerEntry>>();

function finishedEntry(entries: readonly LedgerEntry[], requestId: string): LedgerEntry | undefined {
  let index = finishedIndexes.get(entries);
  if (!index) {
    index = new Map();
    for (const entry of entries) if (entry.kind === 'call_finished' && entry.requestId) index.set(entry.requestId, entry);
    finishedIndexes.set(entries, index);
  }
  return index.get(requestId);
}

/** The call's end as its ledger entry says it, or undefined while it runs (or before the ledger is read). */
function useCallFinished(requestId: string): LedgerEntry | undefined {
  const transport = useTransport();
  const held = useLedger((state) => finishedEntry(state.entries, requestId));
  const loaded = useLedger((state) => state.loaded);
  const asked = useQuery({
    queryKey: ['approvalOutcome', requestId],
    queryFn: async () => (await transport.getLedger({ requestId, kind: 'call_finished', limit: 1 })).entries[0] ?? null,
    // Only for an entry older than the window held; a call that ends later arrives live.
    enabled: loaded && !held,
    refetchOnWindowFocus: false,
  });
  return held ?? asked.data ?? undefined;
}

/** An approved call's outcome: "Ran ok in 12 ms", "Failed: DESTINATION_REFUSED", or running. */
export function ApprovalOutcome({ requestId }: { requestId: string }) {
  const finished = useCallFinished(requestId);
  if (!finished) {
    return (
      <span className="badge call-outcome call-outcome--running" data-testid="approval-outcome">
        <Icon name="spinner" className="spin" />
        Running…
      </span>
    );
  }
  const look = outcomeLook(finished);
  return (
    <span className={`badge call-outcome call-outcome--${look.tone}`} data-testid="approval-outcome" title={`Its call_finished entry, #${finished.seq}`}>
      <Icon name={look.icon} />
      {look.label}
    </span>
  );
}
