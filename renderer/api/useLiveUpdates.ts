/**
 * Keeps the page current without polling: one subscription to the gateway's events for the
 * whole app. A catalog event (a skill written, a provider switched, a capability revoked)
 * re-reads the catalog and the searches; event types this console does not know are ignored.
 */
import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useConsoleUi } from '../state/uiStore';
import { refreshCatalog, useTransport } from './hooks';

export function useLiveUpdates(): void {
  const transport = useTransport();
  const client = useQueryClient();
  const setLiveStatus = useConsoleUi((ui) => ui.setLiveStatus);
  useEffect(
    () =>
      transport.subscribe(
        (event) => {
          if (event.type === 'catalog') refreshCatalog(client);
        },
        // Events sent while the stream was down are lost; read everything again instead.
        { onReconnect: () => refreshCatalog(client), onStatus: setLiveStatus },
      ),
    [transport, client, setLiveStatus],
  );
}
