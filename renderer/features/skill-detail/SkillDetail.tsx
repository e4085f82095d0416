/**
 * The selected skill: what a model would read it for, and where it comes from. Skills are text,
 * not calls, so there is nothing to run here; the inspect drawer has the full contract.
 */
import { Icon } from '../../ui/Icon';
import { CapabilityHeader } from '../registry/CapabilityHeader';
import { ownStateLook, SkillBadge } from '../registry/StateBadge';
import type { SkillEntry } from '../registry/useRegistry';

export function SkillDetail({ entry }: { entry: SkillEntry }) {
  const { contract: skill, state } = entry;
  const look = state === 'revoked' ? ownStateLook.revoked : state === 'skill-hidden' ? ownStateLook['skill-hidden'] : ownStateLook.skill;
  return (
    <section className="tool-detail" aria-labelledby="skill-detail-heading" data-state={state}>
      <CapabilityHeader entry={entry} headingId="skill-detail-heading" badges={<SkillBadge />} />
      <p className="tool-detail__description">{skill.description}</p>
      <div className={`notice notice--${state === 'revoked' ? 'revoked' : 'read-only'}`}>
        <Icon name={look.icon} />
        <p>{look.hint}</p>
      </div>
      <dl className="facts">
        <div className="facts__row">
          <dt>Use</dt>
          <dd>
            <code>
              /{skill.name}
              {skill.argumentHint ? ` ${skill.argumentHint}` : ''}
            </code>
          </dd>
        </div>
        <div className="facts__row">
          <dt>Allowed tools</dt>
          <dd>{skill.allowedTools.length > 0 ? skill.allowedTools.join(', ') : <span className="muted">none declared</span>}</dd>
        </div>
        <div className="facts__row">
          <dt>File</dt>
          <dd>
            <code className="facts__path">{skill.path}</code>
          </dd>
        </div>
      </dl>
    </section>
  );
}
