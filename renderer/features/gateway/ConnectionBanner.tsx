/**
 * The banner over a console that has its catalog but has lost its gateway (or could not
 * refresh the catalog). Unreachable is the console's own finding (GATEWAY_UNREACHABLE: no
 * answer came back), told apart from an error the gateway itself answered with. Retry now
 * asks at once, the event stream included, instead of waiting for its next attempt; once the
 * gateway answers, what the page read before is read again (./reachability.ts).
 */
import { useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { ErrorBody } from '../../../shared/api';
import { refreshCatalog, useTransport } from '../../api/hooks';
import { errorText } from '../../ui/errorText';
import { Icon } from '../../ui/Icon';
import { useReachability, useReconnects } from './reachability';

interface ConnectionBannerProps {
  /** The catalog's or settings' last failure, if any. */
  error: ErrorBody | null;
  onRetry(): void;
  retrying: boolean;
}

export function ConnectionBanner({ error, onRetry, retrying }: ConnectionBannerProps) {
  const transport = useTransport();
  const unreachable = useReachability((state) => state.unreachable);
  const since = useReachability((state) => state.since);
  const foundBy = useReachability((state) => state.foundBy);
  useResyncOnReconnect();
  const retryNow = () => {
    transport.reconnectNow();
    onRetry();
  };

  if (unreachable) {
    return (
      <div className="banner banner--unreachable" role="alert" data-error-code={unreachable.code} data-found-by={foundBy ?? undefined} title={errorText(unreachable)}>
        <Icon name="unplug" />
        <span>
          <strong>Cannot reach the Capstan gateway</strong>
          {since !== null && <> since {new Date(since).toLocaleTimeString()}</>}: no answer came back (<code>{unreachable.code}</code>, reported by this
          console, not by the gateway). Showing what was last received; Execute is off until the gateway answers.
        </span>
        <button type="button" className="button button--small" onClick={retryNow} aria-disabled={retrying}>
          <Icon name="refresh" className={retrying ? 'spin' : ''} />
          {retrying ? 'Retrying…' : 'Retry now'}
        </button>
      </div>
    );
  }
  // A catalog read that found no gateway is the banner above; once something answered, it is being read again.
  if (!error || error.code === 'GATEWAY_UNREACHABLE') return null;
  return (
    <div className="banner" role="alert" data-error-code={error.code}>
      <Icon name="alert" />
      <span>Could not refresh the catalog ({errorText(error)}). Showing the catalog as last received.</span>
      <button type="button" className="button button--small" onClick={retryNow} disabled={retrying}>
        Retry
      </button>
    </div>
  );
}

/**
 * Once the gateway answers again, everything read before is read again: the catalog and its
 * generation (a restarted gateway may have another), tasks, settings, approvals; queries that
 * had failed try again, so their errors clear. Views keeping their own results (the chain's
 * verdict, the ledger filter's answer) reset on useReconnects() themselves.
 */
function useResyncOnReconnect(): void {
  const client = useQueryClient();
  const reconnects = useReconnects();
  const seen = useRef(reconnects);
  useEffect(() => {
    if (seen.current === reconnects) return;
    seen.current = reconnects;
    refreshCatalog(client);
    void client.invalidateQueries();
  }, [reconnects, client]);
}
