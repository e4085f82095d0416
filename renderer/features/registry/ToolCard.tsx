/**
 * One tool in the list. The name is a real button (keyboard and screen readers select with it);
 * CSS stretches its hit area over the whole card so a click anywhere works too.
 */
import { useId } from 'react';
import { ConfirmationBadge, MutatingBadge, RiskBadge, ToolStateBadge } from '../../ui/badges';
import type { RegistryTool } from './useRegistry';

interface ToolCardProps {
  entry: RegistryTool;
  selected: boolean;
  onSelect(): void;
}

export function ToolCard({ entry: { tool, state }, selected, onSelect }: ToolCardProps) {
  const nameId = useId();
  return (
    <article className={`tool-card tool-card--${state}`} aria-labelledby={nameId} aria-current={selected || undefined} data-state={state}>
      <header className="tool-card__header">
        <h3 className="tool-card__name">
          <button id={nameId} type="button" className="tool-card__select" aria-pressed={selected} onClick={onSelect}>
            {tool.name}
          </button>
        </h3>
        <ToolStateBadge state={state} />
      </header>
      <p className="tool-card__title">{tool.title}</p>
      <p className="tool-card__description">{tool.description}</p>
      <div className="tool-card__badges">
        <RiskBadge risk={tool.riskLevel} />
        <ConfirmationBadge needConfirm={tool.needConfirm} />
        {tool.mutating && <MutatingBadge />}
      </div>
    </article>
  );
}
