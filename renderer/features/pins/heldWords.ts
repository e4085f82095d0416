/** A held tool's reason in words, for its card, its detail and the review (pinned contracts, shared/pins.ts). */
import type { PinHold } from '../../../shared/pins';

export function heldWhat(hold: PinHold): string {
  return hold.kind === 'new' ? 'new since its server was added' : `its server changed ${hold.changed.join(', ')} since it was pinned`;
}
