/**
 * What the resource, template and prompt details share: their kind's badge, the notice of what
 * can be done with one (or why not now), the facts every MCP declaration carries (its server's
 * name for it, its icons, its `_meta`).
 */
import type { ReactNode } from 'react';
import type { PromptContract, ResourceContract, ResourceTemplateContract } from '../../../shared/capability';
import { HeldNotice } from '../pins/HeldNotice';
import { Icon } from '../../ui/Icon';
import { JsonBlock } from '../../ui/JsonBlock';
import { unavailabilityText } from '../registry/availability';
import { CapabilityIcons } from '../registry/CapabilityIcons';
import { ownStateLook } from '../registry/StateBadge';
import type { RegistryEntry } from '../registry/useRegistry';

const KIND_WORDS = { resource: 'Resource', resourceTemplate: 'Resource template', prompt: 'Prompt' } as const;

export function DeclaredKindBadge({ kind }: { kind: keyof typeof KIND_WORDS }) {
  return (
    <span className="badge kind-badge" title={`An MCP server's ${KIND_WORDS[kind].toLowerCase()}`}>
      <Icon name="book" />
      {KIND_WORDS[kind]}
    </span>
  );
}

export function DeclaredNotice({ entry }: { entry: RegistryEntry }) {
  if (entry.state === 'revoked') {
    return (
      <div className="notice notice--revoked">
        <Icon name="ban" />
        <p>{ownStateLook.revoked.hint}</p>
      </div>
    );
  }
  // A template or prompt whose server changed what it says (or added it) since it was pinned: refused until reviewed.
  if (entry.hold) return <HeldNotice capabilityId={entry.id} hold={entry.hold} refused="every read or get" />;
  if (entry.unavailable) {
    return (
      <div className="notice notice--unavailable">
        <Icon name="unplug" />
        <p>{unavailabilityText(entry.unavailable)}</p>
      </div>
    );
  }
  const look = entry.state === 'prompt' ? ownStateLook.prompt : ownStateLook.readable;
  return (
    <div className="notice notice--read-only">
      <Icon name={look.icon} />
      <p>{look.hint} Agents reach it only when their grants allow.</p>
    </div>
  );
}


export function DeclaredFacts({ contract, children }: { contract: ResourceContract | ResourceTemplateContract | PromptContract; children?: ReactNode }) {
  return (
    <>
      <dl className="facts">
        <div className="facts__row">
          <dt>Server&apos;s name</dt>
          <dd>
            <code>{contract.declaredName}</code> <CapabilityIcons icons={contract.icons} />
          </dd>
        </div>
        {children}
      </dl>
      {contract.meta && (
        <details className="declared-meta">
          <summary>_meta, as the server declared it</summary>
          <JsonBlock value={contract.meta} label="_meta" />
        </details>
      )}
    </>
  );
}
