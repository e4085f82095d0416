/** The capabilities pane: filters and search over the virtualized list, or a clear word when nothing is left. */
import { useRef } from 'react';
import type { ProviderInfo } from '../../../shared/capability';
import { useConsoleUi } from '../../state/uiStore';
import { errorText } from '../../ui/errorText';
import { toErrorBody } from '../../api/errors';
import { useSearchResults } from '../search/useSearchResults';
import { CapabilityList, type CapabilityListHandle } from './CapabilityList';
import { FilterBar, filterLabels } from './FilterBar';
import type { RegistryEntry } from './useRegistry';
import { useSlashToSearch } from './useSlashToSearch';

interface RegistryPaneProps {
  entries: readonly RegistryEntry[];
  byId: ReadonlyMap<string, RegistryEntry>;
  providers: readonly ProviderInfo[];
}

export function RegistryPane({ entries, byId, providers }: RegistryPaneProps) {
  const view = useSearchResults(entries, byId);
  const filter = useConsoleUi((ui) => ui.filter);
  const facetsChosen = useConsoleUi((ui) => ui.kind !== 'all' || ui.provider !== null);
  const clearFilters = useConsoleUi((ui) => ui.clearFilters);
  const setQuery = useConsoleUi((ui) => ui.setQuery);
  const list = useRef<CapabilityListHandle>(null);
  const search = useRef<HTMLInputElement>(null);
  useSlashToSearch(search);

  return (
    <section className="registry-pane" aria-labelledby="registry-heading">
      <h2 id="registry-heading" className="pane-heading visually-hidden">
        Capabilities
      </h2>
      <FilterBar view={view} providers={providers} searchRef={search} onEnterList={() => list.current?.focusFirst()} />
      {view.error && !view.searching && (
        <p className="notice notice--error" role="alert">
          Search failed: {errorText(toErrorBody(view.error))}
        </p>
      )}
      {view.shown.length > 0 ? (
        <CapabilityList ref={list} view={view} onExitTop={() => search.current?.focus()} />
      ) : (
        <div className="empty-state" data-results-for={view.resultsFor}>
          {entries.length === 0 ? (
            <p>The gateway returned an empty catalog: no enabled provider offers a capability right now.</p>
          ) : view.noLexicalMatch ? (
            <>
              <p>
                <strong>No lexical match</strong> for “{view.resultsFor}”.
              </p>
              <p className="muted">
                Search is lexical-v1: it matches whole words and word beginnings in names, tags, descriptions, provider names and kinds.
                There is no fuzzy or semantic guessing.
              </p>
              <button type="button" className="button" onClick={() => setQuery('')}>
                Clear search
              </button>
            </>
          ) : (
            <>
              <p>
                No capability matches {view.resultsFor ? <>“{view.resultsFor}” under </> : null}the {filterLabels[filter]} filter
                {facetsChosen ? ' with the chosen kind and provider' : ''}.
              </p>
              <button type="button" className="button" onClick={clearFilters}>
                Clear filters
              </button>
            </>
          )}
        </div>
      )}
    </section>
  );
}
