/**
 * The small labels every tool carries. Each one reads as text and carries an icon or shape as
 * well as a colour, so no state is told by colour alone.
 */
import type { RiskLevel } from '../../shared/api';
import type { ToolState } from '../../shared/policy';
import { Icon, type IconName } from './Icon';

/**
 * The console's three states name what the operator may do with a tool here, not what the tool
 * does (whether it writes data is its own badge). One idea, one name, everywhere in the console
 * and the docs: the operator's **one-click tools** (Settings), which run here with Execute; the
 * others needing no confirmation are **view only here**; the rest are **locked**.
 */
export const toolStateLook: Record<ToolState, { label: string; icon: IconName; hint: string }> = {
  executable: {
    label: 'One-click here',
    icon: 'play',
    hint: 'Needs no confirmation and is one of this console’s one-click tools (Settings): Execute runs it.',
  },
  'read-only': {
    label: 'View only here',
    icon: 'eye',
    hint: 'Needs no confirmation, but is not one of this console’s one-click tools: you can inspect it here, not run it. Add it to One-click tools in Settings to run it here. Whether it writes data is its own badge.',
  },
  locked: {
    label: 'Locked: confirm to run',
    icon: 'lock',
    hint: 'Needs confirmation: runs here only after you review and confirm the exact call.',
  },
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

/** The contract's `mutating` flag, in words: what the tool does when it runs, whichever state the console gives it. */
export function MutatingBadge() {
  return (
    <span className="badge mutating-badge" title="Changes stored data when it runs (the contract marks it mutating). Whether this console runs it is its state badge.">
      <Icon name="pencil" />
      Writes data
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
