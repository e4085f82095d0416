/**
 * What the resource, template and prompt details share: their kind's badge, the notice of what
 * can be done with one (or why not now), the facts every MCP declaration carries (its server's
 * name for it, its icons, its `_meta`).
 */
import type { ReactNode } from 'react';
import type { CapabilityIcon, PromptContract, ResourceContract, ResourceTemplateContract } from '../../../shared/capability';
import type { z } from 'zod';
import { Icon } from '../../ui/Icon';
import { JsonBlock } from '../../ui/JsonBlock';
import { unavailabilityText } from '../registry/availability';
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

/** Only icons the console may show itself (data: URIs; its page loads nothing from elsewhere). */
export function DeclaredIcons({ icons }: { icons: readonly z.infer<typeof CapabilityIcon>[] | undefined }) {
  const shown = (icons ?? []).filter((icon) => icon.src.startsWith('data:image/'));
  if (shown.length === 0) return null;
  return (
    <span className="declared-icons">
      {shown.slice(0, 3).map((icon) => (
        <img key={icon.src} className="declared-icon" src={icon.src} alt="" width={20} height={20} />
      ))}
    </span>
  );
}

export function DeclaredFacts({ contract, children }: { contract: ResourceContract | ResourceTemplateContract | PromptContract; children?: ReactNode }) {
  return (
    <>
      <dl className="facts">
        <div className="facts__row">
          <dt>Server&apos;s name</dt>
          <dd>
            <code>{contract.declaredName}</code> <DeclaredIcons icons={contract.icons} />
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
