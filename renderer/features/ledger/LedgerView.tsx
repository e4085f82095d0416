/**
 * The live Ledger view: the newest entries as they are appended (fed by events, never polled),
 * filterable by task, requestId, capability, principal and kind, with the chain check. With a filter, what
 * is held here is shown at once and the gateway is asked for older matches.
 */
import { useEffect, useState } from 'react';
import type { LedgerEntry } from '../../../shared/ledger';
import { useTransport } from '../../api/hooks';
import { toErrorBody } from '../../api/errors';
import { filterKey, isEmptyFilter, MAX_KEPT_ENTRIES, matchesFilter, useLedger } from '../../state/ledgerStore';
import { useConsoleUi } from '../../state/uiStore';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Icon } from '../../ui/Icon';
import { latestMatching } from './latestMatching';
import { useReconnects } from '../gateway/reachability';
import { LedgerEntryDrawer } from './LedgerEntryDrawer';
import { LedgerFilters } from './LedgerFilters';
import { LedgerGrid } from './LedgerGrid';
import { VerifyChain } from './VerifyChain';

export function LedgerView() {
  const transport = useTransport();
  const filter = useConsoleUi((ui) => ui.ledgerFilter);
  const held = useLedger((ledger) => ledger.entries);
  const loaded = useLedger((ledger) => ledger.loaded);
  const loadError = useLedger((ledger) => ledger.loadError);
  const filtered = useLedger((ledger) => ledger.filtered);
  const [open, setOpen] = useState<LedgerEntry | null>(null);
  const key = filterKey(filter);
  const unfiltered = isEmptyFilter(filter);

  // Reached again after losing the gateway: ask again, so a failed answer's error clears.
  const reconnects = useReconnects();

  // A new filter: show the matches held here at once, and ask the gateway for the newest matches.
  useEffect(() => {
    const ledger = useLedger.getState();
    ledger.startFilter(filter);
    if (isEmptyFilter(filter)) return;
    const controller = new AbortController();
    const asked = filterKey(filter);
    latestMatching(transport, filter, controller.signal).then(
      (entries) => useLedger.getState().filterAnswered(asked, entries),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        useLedger.getState().filterFailed(asked, toErrorBody(error));
      },
    );
    return () => controller.abort();
  }, [filter, transport, reconnects]);

  const current = filtered?.key === key ? filtered : null;
  const entries = unfiltered ? held : (current?.entries ?? held.filter((entry) => matchesFilter(entry, filter)));
  const searching = !unfiltered && (current?.loading ?? true);

  return (
    <div className="ledger-view">
      <LedgerFilters />
      <div className="ledger-view__status">
        <p className="ledger-view__summary muted" role="status" data-ledger-shown={entries.length}>
          {unfiltered ? (
            <>
              Newest first, live. {entries.length.toLocaleString()} {entries.length === 1 ? 'entry' : 'entries'} held here; this window keeps the last{' '}
              {MAX_KEPT_ENTRIES.toLocaleString()} (older ones: set a filter, or run <code>capstan ledger export</code>).
            </>
          ) : (
            <>
              {entries.length.toLocaleString()} matching {entries.length === 1 ? 'entry' : 'entries'}, newest first, live
              {searching ? (
                <>
                  {' '}
                  · <Icon name="spinner" className="spin" /> asking the gateway for older matches…
                </>
              ) : (
                '.'
              )}
            </>
          )}
        </p>
        <VerifyChain />
      </div>
      {loadError && <ErrorNotice what="Could not read the ledger" error={loadError} />}
      {current?.error && <ErrorNotice what="The filtered query failed" error={current.error} />}
      {entries.length > 0 ? (
        <LedgerGrid entries={entries} viewKey={key} onOpen={setOpen} />
      ) : (
        <div className="empty-state">
          {!loaded && !loadError ? (
            <p className="loading">
              <Icon name="spinner" className="spin" /> Reading the ledger…
            </p>
          ) : unfiltered ? (
            <p>The ledger is empty. Run a tool or start a task: its entries appear here as they are written.</p>
          ) : (
            <p>{searching ? 'Looking for matching entries…' : 'No entry matches these filters. New matching entries appear here as they are written.'}</p>
          )}
        </div>
      )}
      <LedgerEntryDrawer entry={open} onClose={() => setOpen(null)} />
    </div>
  );
}
