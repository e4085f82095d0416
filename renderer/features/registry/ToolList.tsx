/** The filtered registry, or a clear word when the filters leave nothing. */
import { matchesFilter } from '../../../shared/policy';
import { useConsoleUi } from '../../state/uiStore';
import { FilterBar, filterLabels } from './FilterBar';
import { ToolCard } from './ToolCard';
import type { RegistryTool } from './useRegistry';

export function ToolList({ entries }: { entries: RegistryTool[] }) {
  const { filter, filterText, selectedTool, selectTool, clearFilters } = useConsoleUi();
  const shown = entries.filter((entry) => matchesFilter(entry.tool, filter, filterText));

  return (
    <section className="registry-pane" aria-labelledby="registry-heading">
      <h2 id="registry-heading" className="pane-heading">
        Tools
      </h2>
      <FilterBar shown={shown.length} total={entries.length} />
      {shown.length === 0 ? (
        <div className="empty-state">
          {entries.length === 0 ? (
            <p>The gateway returned an empty registry: no provider offers a tool right now.</p>
          ) : (
            <>
              <p>
                No tool matches {filterText.trim() ? <>“{filterText.trim()}” under </> : null}the {filterLabels[filter]} filter.
              </p>
              <button type="button" className="button" onClick={clearFilters}>
                Clear filters
              </button>
            </>
          )}
        </div>
      ) : (
        <ul className="tool-list">
          {shown.map((entry) => (
            <li key={entry.tool.name}>
              <ToolCard entry={entry} selected={entry.tool.name === selectedTool} onSelect={() => selectTool(entry.tool.name)} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
