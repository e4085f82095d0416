/**
 * Keeps the page current without polling: one subscription to the gateway's events for the
 * whole app, routed to the features they concern. It lives beside App.tsx because it knows
 * every feature; api/ below it knows none. A catalog event (a skill written, a provider switched, a capability revoked)
 * carries what changed, applied to the held catalog in place (the searches are asked again); ledger and task events feed the Ledger and Tasks views
 * (gathered once per animation frame); progress events feed the running calls' bars until their
 * call_finished entry arrives; harn events feed the Harn run panels of the Tasks view; approval events keep the Approvals queue and its count current; executions events keep Recent executions current. Event types this console does not know are ignored.
 */
import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { LedgerEntry } from '../shared/ledger';
import { applyCatalogEvent, refreshCatalog, refreshPins, useTransport } from './api/hooks';
import type { LiveStatus } from './api/transport';
import { applyApproval } from './features/approvals/approvalCache';
import { refreshApprovals } from './features/approvals/useApprovals';
import { createExecutionsFeed } from './features/executions/executionsFeed';
import { applyServerLogLine } from './features/providers/useServerLog';
import { applyResourceUpdate } from './features/resource-detail/resourceUpdates';
import { applyAsk, refreshAsks } from './features/approvals/useAsks';
import { createLedgerFeed } from './features/ledger/ledgerFeed';
import { createProgressFeed } from './features/progress/progressFeed';
import { createTaskFeed } from './features/tasks/taskCache';
import { applyHarnEvent } from './features/tasks/harn/harnCache';
import { refreshHarnRuns } from './features/tasks/harn/useHarnRuns';
import { refreshTasks } from './features/tasks/useTasks';
import { useConsoleUi } from './state/uiStore';

/**
 * Entries that change a session's unknown outcomes, which task events do not carry: a call
 * ending with an unknown outcome, or the operator acknowledging one.
 */
const changesUnknownOutcomes = (entry: LedgerEntry) =>
  entry.kind === 'acknowledgement' || (entry.kind === 'call_finished' && entry.details.status === 'outcome_unknown');

/** Entries that hold or release a tool (pinned contracts), for the held count and the review. */
const changesPins = (entry: LedgerEntry) => entry.kind === 'contract_held' || entry.kind === 'pin_accepted' || entry.kind === 'pin_set';

export function useLiveUpdates(): void {
  const transport = useTransport();
  const client = useQueryClient();
  const setLiveStatus = useConsoleUi((ui) => ui.setLiveStatus);
  useEffect(() => {
    const ledger = createLedgerFeed(transport);
    const tasks = createTaskFeed(client);
    const progress = createProgressFeed();
    const executions = createExecutionsFeed(transport);
    let opened = false;
    const unsubscribe = transport.subscribe(
      (event) => {
        if (event.type === 'catalog') applyCatalogEvent(client, event);
        else if (event.type === 'task') tasks.push(event.task);
        else if (event.type === 'progress') progress.push(event);
        else if (event.type === 'harn') applyHarnEvent(client, event);
        else if (event.type === 'approval') applyApproval(client, event.approval);
        else if (event.type === 'executions') executions.push(event);
        else if (event.type === 'serverLog') applyServerLogLine(client, event);
        else if (event.type === 'resourceUpdated') applyResourceUpdate(event);
        else if (event.type === 'ask') applyAsk(client, event.ask);
        else if (event.type === 'ledger') {
          ledger.push(event.entry);
          if (event.entry.kind === 'call_finished' && event.entry.requestId) progress.ended(event.entry.requestId);
          if (changesUnknownOutcomes(event.entry)) refreshTasks(transport, client);
          if (changesPins(event.entry)) refreshPins(client);
        }
      },
      {
        // Events sent while the stream was down are lost: read the catalog again, conditionally (a 304 if nothing changed).
        onReconnect: () => refreshCatalog(client),
        onStatus: (status: LiveStatus) => {
          setLiveStatus(status);
          // A stream that opens starts at the gateway's present: read what came before it.
          if (status === 'live') {
            // The catalog read at start can be answered before the stream opened, so a change in between
            // is never heard: read it again, conditionally. A reconnect does this in onReconnect.
            if (!opened) refreshCatalog(client);
            opened = true;
            refreshTasks(transport, client);
            refreshHarnRuns(client);
            refreshApprovals(transport, client);
            refreshAsks(transport, client);
            void ledger.resync();
            executions.resync();
          }
        },
      },
    );
    return () => {
      unsubscribe();
      ledger.stop();
      tasks.stop();
      progress.stop();
      executions.stop();
    };
  }, [transport, client, setLiveStatus]);
}
