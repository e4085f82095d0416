/** The header's "N held": MCP tools held for review (pinned contracts); opens the review, on the tool itself when only one is held. */
import type { PinHold } from '../../../shared/pins';
import { useConsoleUi } from '../../state/uiStore';
import { Icon } from '../../ui/Icon';
import './pins.css';

export function HeldIndicator({ held }: { held: readonly PinHold[] }) {
  const reviewPin = useConsoleUi((ui) => ui.reviewPin);
  if (held.length === 0) return null;
  return (
    <button
      type="button"
      className="button button--attention held-indicator"
      title="MCP tools held for review: their server changed what they say, or added them, since it was pinned"
      onClick={() => reviewPin(held.length === 1 ? held[0]!.id : null)}
    >
      <Icon name="shield" />
      <span data-count="held">{held.length}</span>
      <span>held</span>
    </button>
  );
}
