/** A held tool's reason in words, for its card, its detail and the review (pinned contracts, shared/pins.ts). */
import type { PinHold } from '../../../shared/pins';

export function heldWhat(hold: PinHold): string {
  if (hold.kind === 'new') return 'new since its server was added';
  if (hold.kind === 'renamed') return `renamed from ${hold.renamedFrom ?? 'another name'}, otherwise as pinned`;
  return `its server changed ${hold.changed.join(', ')} since it was pinned`;
}
