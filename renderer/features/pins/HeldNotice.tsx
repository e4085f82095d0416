/** The notice a held capability's detail shows: why it is held, what is refused meanwhile, and the way to review it. */
import type { PinHold } from '../../../shared/pins';
import { useConsoleUi } from '../../state/uiStore';
import { Icon } from '../../ui/Icon';
import { ownStateLook } from '../registry/StateBadge';
import { heldWhat } from './heldWords';

interface HeldNoticeProps {
  capabilityId: string;
  hold: PinHold;
  /** What is refused while it is held: "every call", "every read or get". */
  refused: string;
  /** For the controls it disables to point at (aria-describedby). */
  id?: string | undefined;
}

export function HeldNotice({ capabilityId, hold, refused, id }: HeldNoticeProps) {
  const reviewPin = useConsoleUi((ui) => ui.reviewPin);
  return (
    <div className="notice notice--held" id={id} role="status">
      <Icon name={ownStateLook.held.icon} />
      <p>
        Held for review: {heldWhat(hold)}. Until you review and accept it, {refused} (from here, the CLI or an agent) is refused with <code>CONTRACT_CHANGED</code>,
        and no task sees it.{' '}
        <button type="button" className="link-button" onClick={() => reviewPin(capabilityId)}>
          Review the change
        </button>
      </p>
    </div>
  );
}
