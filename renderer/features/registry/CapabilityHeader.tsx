/**
 * The top of a selected capability's panel, the same for tools and skills: name, title and id,
 * state and Inspect, then the kind's own badges, the provider and the tags.
 */
import type { ReactNode } from 'react';
import { InspectButton } from '../inspect/InspectButton';
import { StateBadge } from './StateBadge';
import type { RegistryEntry } from './useRegistry';

export function CapabilityHeader({ entry, headingId, badges }: { entry: RegistryEntry; headingId: string; badges: ReactNode }) {
  const { contract, state } = entry;
  return (
    <>
      <header className="tool-detail__header">
        <div>
          <h2 id={headingId} className="tool-detail__name">
            {contract.name}
          </h2>
          <p className="tool-detail__title">
            {contract.title !== contract.name && <>{contract.title} </>}
            <code className="tool-detail__id" title="Capability id">
              {contract.id}
            </code>
          </p>
        </div>
        <div className="tool-detail__header-actions">
          <StateBadge state={state} />
          <InspectButton id={entry.id} />
        </div>
      </header>
      <div className="tool-detail__badges">
        {badges}
        <span className="badge badge--plain">provider: {contract.provider}</span>
        {contract.tags.map((tag) => (
          <span key={tag} className="badge badge--tag">
            #{tag}
          </span>
        ))}
      </div>
    </>
  );
}
