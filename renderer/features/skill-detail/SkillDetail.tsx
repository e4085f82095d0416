/**
 * The selected skill: what a model would read it for, and where it comes from. Skills are text,
 * not calls, so there is nothing to run here; the inspect drawer has the full contract.
 */
import { Icon } from '../../ui/Icon';
import { InspectButton } from '../inspect/InspectButton';
import { ownStateLook, SkillBadge, StateBadge } from '../registry/StateBadge';
import type { SkillEntry } from '../registry/useRegistry';

export function SkillDetail({ entry }: { entry: SkillEntry }) {
  const { contract: skill, state } = entry;
  const look = state === 'revoked' ? ownStateLook.revoked : state === 'skill-hidden' ? ownStateLook['skill-hidden'] : ownStateLook.skill;
  return (
    <section className="tool-detail" aria-labelledby="skill-detail-heading" data-state={state}>
      <header className="tool-detail__header">
        <div>
          <h2 id="skill-detail-heading" className="tool-detail__name">
            {skill.name}
          </h2>
          <p className="tool-detail__title">
            {skill.title !== skill.name && <>{skill.title} </>}
            <code className="tool-detail__id" title="Capability id">
              {skill.id}
            </code>
          </p>
        </div>
        <div className="tool-detail__header-actions">
          <StateBadge state={state} />
          <InspectButton id={entry.id} />
        </div>
      </header>
      <div className="tool-detail__badges">
        <SkillBadge />
        <span className="badge badge--plain">provider: {skill.provider}</span>
        {skill.tags.map((tag) => (
          <span key={tag} className="badge badge--tag">
            #{tag}
          </span>
        ))}
      </div>
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
