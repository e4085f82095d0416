/**
 * The small labels every tool carries. Each one reads as text and carries an icon or shape as
 * well as a colour, so no state is told by colour alone.
 */
import type { RiskLevel } from '../../shared/api';
import type { ToolState } from '../../shared/policy';
import { Icon, type IconName } from './Icon';

export const toolStateLook: Record<ToolState, { label: string; icon: IconName; hint: string }> = {
  executable: { label: 'Executable', icon: 'play', hint: 'On your whitelist: runs with one click.' },
  'read-only': { label: 'Read-only', icon: 'eye', hint: 'Not on your whitelist — add it in Settings to run it here.' },
  locked: { label: 'Locked', icon: 'lock', hint: 'Needs confirmation: runs only after you review the exact call.' },
};

export function ToolStateBadge({ state }: { state: ToolState }) {
  const look = toolStateLook[state];
  return (
    <span className={`badge state-badge state-badge--${state}`} title={look.hint}>
      <Icon name={look.icon} />
      {look.label}
    </span>
  );
}

export function RiskBadge({ risk }: { risk: RiskLevel }) {
  return <span className={`badge risk-badge risk-badge--${risk}`}>{risk} risk</span>;
}

export function ConfirmationBadge({ needConfirm }: { needConfirm: boolean }) {
  return (
    <span className={`badge confirm-badge ${needConfirm ? 'confirm-badge--needed' : ''}`}>
      {needConfirm ? 'Needs confirmation' : 'No confirmation'}
    </span>
  );
}

export function MutatingBadge() {
  return (
    <span className="badge mutating-badge" title="Changes stored state when it runs">
      <Icon name="pencil" />
      Mutating
    </span>
  );
}

export function DeprecatedBadge() {
  return (
    <span className="badge deprecated-badge" title="Its provider marks it deprecated: prefer another tool">
      <Icon name="alert" />
      Deprecated
    </span>
  );
}
