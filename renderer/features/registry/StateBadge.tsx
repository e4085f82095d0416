/**
 * A capability's state in words, with an icon and an edge style as well as a colour. Tool states
 * are the foundation's (ui/badges.tsx); revoked capabilities and skills have their own.
 */
import { ToolStateBadge, toolStateLook } from '../../ui/badges';
import { Icon, type IconName } from '../../ui/Icon';
import type { CapabilityState } from './capabilityState';

type OwnState = Exclude<CapabilityState, keyof typeof toolStateLook>;

export const ownStateLook: Record<OwnState, { label: string; icon: IconName; hint: string }> = {
  revoked: { label: 'Revoked', icon: 'ban', hint: 'Revoked by the operator: refused everywhere until restored.' },
  held: {
    label: 'Held for review',
    icon: 'shield',
    hint: 'Its server changed what this tool says (or added it) since it was pinned: refused everywhere with CONTRACT_CHANGED until you review and accept it.',
  },
  'not-runnable': {
    label: 'Not runnable here',
    icon: 'ban',
    hint: 'Capstan lists this tool but cannot run it (the tool says why): calls are refused with TOOL_NOT_RUNNABLE.',
  },
  unavailable: { label: 'Unavailable', icon: 'unplug', hint: 'Its server is not connected: calls are refused until it is ready again.' },
  skill: { label: 'Inspect only', icon: 'book', hint: 'A skill: text a model reads. The console inspects it; it does not run.' },
  readable: { label: 'Readable', icon: 'book', hint: "An MCP server's resource (or template): read it from its detail; each read is on record." },
  prompt: { label: 'Prompt', icon: 'book', hint: "An MCP server's prompt: get it with arguments from its detail; each get is on record." },
  'skill-hidden': {
    label: 'Hidden from models',
    icon: 'eyeOff',
    hint: 'disable-model-invocation: models do not discover it; an operator can still use it as /name.',
  },
};

export function StateBadge({ state }: { state: CapabilityState }) {
  if (state === 'executable' || state === 'read-only' || state === 'locked') return <ToolStateBadge state={state} />;
  const look = ownStateLook[state];
  return (
    <span className={`badge state-badge state-badge--${state}`} title={look.hint}>
      <Icon name={look.icon} />
      {look.label}
    </span>
  );
}

export function SkillBadge() {
  return (
    <span className="badge kind-badge" title="A skill: instructions a model reads, not a callable tool">
      <Icon name="book" />
      Skill
    </span>
  );
}
