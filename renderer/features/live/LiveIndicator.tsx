/**
 * Whether the page is current: "Live" while the gateway's events arrive, "Reconnecting…" while
 * the stream is down (what is shown may be out of date until it comes back and catches up),
 * "Not live" when the gateway refused the token.
 */
import { useConsoleUi } from '../../state/uiStore';

const looks = {
  connecting: { label: 'Connecting…', hint: 'Opening the live event stream to the gateway.' },
  live: { label: 'Live', hint: 'Changes to the catalog, tasks and ledger appear here as they happen.' },
  reconnecting: { label: 'Reconnecting…', hint: 'The live event stream dropped; what is shown may be out of date until it is back.' },
  refused: { label: 'Not live', hint: 'The gateway refused this page’s token, so no live events arrive.' },
} as const;

export function LiveIndicator() {
  const status = useConsoleUi((ui) => ui.liveStatus);
  const look = looks[status];
  return (
    <span className={`live-indicator live-indicator--${status}`} role="status" title={look.hint} data-live={status}>
      <span className="live-indicator__dot" aria-hidden="true" />
      <span className="live-indicator__label">{look.label}</span>
    </span>
  );
}
