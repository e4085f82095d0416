/**
 * The selected skill: what a model would read it for, where it comes from, its SKILL.md text
 * and what activating it costs in tokens (GET /catalog/skill, counted as admission counts).
 * Skills are text, not calls, so there is nothing to run here; the inspect drawer has the full
 * contract.
 */
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { visibleText } from '../../../shared/visibleText';
import { useTransport } from '../../api/hooks';
import { toErrorBody } from '../../api/errors';
import { ErrorNotice } from '../../ui/ErrorNotice';
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
      <SkillText id={entry.id} bodyHash={skill.bodyHash} />
    </section>
  );
}

/** The body a model reads on activation, with its cost; read again whenever the file's body changes. */
function SkillText({ id, bodyHash }: { id: string; bodyHash: string }) {
  const transport = useTransport();
  const headingId = useId();
  const text = useQuery({ queryKey: ['skillText', id, bodyHash], queryFn: () => transport.getSkillText({ id }), staleTime: Infinity });
  return (
    <>
      <h3 className="section-heading" id={headingId}>
        SKILL.md
      </h3>
      {text.error ? (
        <ErrorNotice what="Could not read the skill's text" error={toErrorBody(text.error)} />
      ) : !text.data ? (
        <p className="loading muted">
          <Icon name="spinner" className="spin" /> Reading the skill…
        </p>
      ) : (
        <>
          <p className="skill-cost" data-tokens={text.data.tokens}>
            Activating it adds about <strong>{text.data.tokens.toLocaleString()} tokens</strong> to a task&apos;s context (its body, counted
            with o200k_base as admission counts it).
          </p>
          {/* Untrusted text: control and bidirectional characters are shown, not obeyed. Focusable, so it scrolls by keyboard. */}
          <pre className="skill-body" tabIndex={0} aria-labelledby={headingId}>
            {visibleText(text.data.body.replace(/\r\n/g, '\n').toWellFormed(), { keepNewlines: true })}
          </pre>
        </>
      )}
    </>
  );
}
