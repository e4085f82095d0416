/**
 * One capability in the list, in three lines: name and state; title and description; the
 * badges, provider and tags. Compact, so eight or more rows fit a 900 px window; the detail and
 * the inspect drawer say the rest. The name is a real button (keyboard and screen readers select
 * with it); CSS stretches its hit area over the whole card so a click anywhere works too.
 * Memoized: with thousands of rows, a keystroke re-renders only the rows whose props changed.
 */
import { memo, useId } from 'react';
import { ConfirmationBadge, DeprecatedBadge, MutatingBadge, RiskBadge } from '../../ui/badges';
import { heldWhat } from '../pins/heldWords';
import { Highlight } from '../search/Highlight';
import type { MatchedFields } from '../search/useSearchResults';
import { unavailabilityText } from './availability';
import { CapabilityIcons } from './CapabilityIcons';
import { SkillBadge, StateBadge } from './StateBadge';
import type { RegistryEntry } from './useRegistry';

interface CapabilityCardProps {
  entry: RegistryEntry;
  selected: boolean;
  /** The one row the Tab key reaches (roving tabindex); arrow keys move between rows. */
  tabbable: boolean;
  /** The fields the current query matched, whose terms are marked. */
  matched: MatchedFields | undefined;
  terms: readonly string[];
  onSelect(id: string): void;
}

const NONE: readonly string[] = [];
/** Enough tags to recognise a capability on one line; the inspect drawer lists them all. */
const MAX_TAGS = 4;

export const CapabilityCard = memo(function CapabilityCard({ entry, selected, tabbable, matched, terms, onSelect }: CapabilityCardProps) {
  const nameId = useId();
  const { contract, state } = entry;
  const termsFor = (field: 'name' | 'description' | 'tags') => (matched?.includes(field) ? terms : NONE);
  const tags = termsFor('tags') === NONE ? contract.tags.slice(0, MAX_TAGS) : tagsMatchedFirst(contract.tags, terms);

  return (
    <article
      className={`tool-card tool-card--${state}`}
      aria-labelledby={nameId}
      aria-current={selected || undefined}
      data-state={state}
      data-kind={contract.kind}
    >
      <header className="tool-card__header">
        <h3 className="tool-card__name">
          <button
            id={nameId}
            type="button"
            className="tool-card__select"
            aria-pressed={selected}
            tabIndex={tabbable ? 0 : -1}
            onClick={() => onSelect(entry.id)}
          >
            <Highlight text={contract.name} terms={termsFor('name')} />
          </button>
          {contract.kind !== 'skill' && <CapabilityIcons icons={contract.icons} />}
        </h3>
        <StateBadge state={state} />
      </header>
      <p className="tool-card__description">
        {contract.title !== contract.name && <span className="tool-card__title">{contract.title}</span>}
        <Highlight text={contract.description} terms={termsFor('description')} />
      </p>
      {contract.kind === 'tool' && contract.runnable === false && <p className="tool-card__unavailable">Not runnable here: {contract.notRunnableReason}</p>}
      {entry.hold && <p className="tool-card__unavailable">Held for review: {heldWhat(entry.hold)}</p>}
      {entry.unavailable && <p className="tool-card__unavailable">{unavailabilityText(entry.unavailable)}</p>}
      <div className="tool-card__footer">
        <div className="tool-card__badges">
          {contract.kind === 'skill' ? (
            <SkillBadge />
          ) : (
            <>
              <RiskBadge risk={contract.riskLevel} />
              <ConfirmationBadge needConfirm={contract.needConfirm} />
              {contract.mutating && <MutatingBadge />}
              {contract.kind === 'tool' && contract.deprecated && <DeprecatedBadge />}
            </>
          )}
        </div>
        <p className="tool-card__meta">
          <span title="Provider">{contract.provider}</span>
          {tags.map((tag) => (
            <span key={tag} className="tool-card__tag">
              #<Highlight text={tag} terms={termsFor('tags')} />
            </span>
          ))}
        </p>
      </div>
    </article>
  );
});

/** When tags matched, the matching ones come first, so the reason for the hit is on the card. */
function tagsMatchedFirst(tags: readonly string[], terms: readonly string[]): string[] {
  const hits = tags.filter((tag) => terms.some((term) => tag.toLowerCase().includes(term)));
  return [...new Set([...hits, ...tags])].slice(0, MAX_TAGS);
}
