/**
 * The filters over the list: risk (segmented buttons), kind and provider facets with their
 * counts, and the search box, which asks the gateway's lexical-v1 search on every keystroke.
 * The search box comes last, right above the list: Tab and ArrowDown go from it to the rows.
 */
import { useEffect, useId, useState, type Ref } from 'react';
import type { ProviderInfo } from '../../../shared/capability';
import type { ToolFilter } from '../../../shared/policy';
import { useConsoleUi, type KindFilter } from '../../state/uiStore';
import { Icon } from '../../ui/Icon';
import { useSearchAhead, type SearchView } from '../search/useSearchResults';

export const filterLabels: Record<ToolFilter, string> = {
  all: 'All',
  'low-risk': 'Low risk',
  confirm: 'Confirmation required',
};

const kindLabels: Record<KindFilter, string> = { all: 'All kinds', tool: 'Tools', skill: 'Skills', resource: 'Resources', resourceTemplate: 'Templates', prompt: 'Prompts' };

/** Tools and skills are always offered; an MCP server's resources, templates and prompts once there are some (or while chosen). */
const ALWAYS: readonly KindFilter[] = ['all', 'tool', 'skill'];
const kindShown = (value: KindFilter, chosen: KindFilter, kinds: Record<Exclude<KindFilter, 'all'>, number>) =>
  ALWAYS.includes(value) || value === chosen || kinds[value as Exclude<KindFilter, 'all'>] > 0;

interface FilterBarProps {
  view: SearchView;
  providers: readonly ProviderInfo[];
  searchRef: Ref<HTMLInputElement>;
  /** ArrowDown in the search box moves to the first row. */
  onEnterList(): void;
}

export function FilterBar({ view, providers, searchRef, onEnterList }: FilterBarProps) {
  const { filter, kind, provider, query, setFilter, setKind, setProvider, setQuery } = useConsoleUi();
  const searchAhead = useSearchAhead();
  const searchId = useId();
  const providerId = useId();
  const { kinds, providers: providerCounts } = view.facets;
  const kindCount: Record<KindFilter, number> = { all: kinds.tool + kinds.skill + kinds.resource + kinds.resourceTemplate + kinds.prompt, ...kinds };
  // Every enabled provider is offered, even with no match, so the choice does not jump around while typing.
  const providerNames = providers.filter((info) => info.enabled).map((info) => info.name);
  if (provider !== null && !providerNames.includes(provider)) providerNames.push(provider);

  return (
    <div className="filter-bar">
      <div className="segmented" role="group" aria-label="Filter by risk">
        {(Object.keys(filterLabels) as ToolFilter[]).map((value) => (
          <button key={value} type="button" className="segmented__option" aria-pressed={filter === value} onClick={() => setFilter(value)}>
            {filterLabels[value]}
          </button>
        ))}
      </div>
      <div className="segmented" role="group" aria-label="Filter by kind">
        {(Object.keys(kindLabels) as KindFilter[]).filter((value) => kindShown(value, kind, kinds)).map((value) => (
          <button key={value} type="button" className="segmented__option" aria-pressed={kind === value} onClick={() => setKind(value)}>
            {kindLabels[value]} <span className="facet-count">{kindCount[value]}</span>
          </button>
        ))}
      </div>
      {/* Provider and search share a row, so the list keeps the height for eight or more rows at 900 px. */}
      <div className="filter-bar__query">
        <label htmlFor={providerId} className="visually-hidden">
          Provider
        </label>
        <select
          id={providerId}
          className="input filter-bar__provider"
          value={provider ?? ''}
          onChange={(event) => setProvider(event.target.value === '' ? null : event.target.value)}
        >
          <option value="">All providers ({sum(providerCounts)})</option>
          {providerNames.map((name) => (
            <option key={name} value={name}>
              {name} ({providerCounts.get(name) ?? 0})
            </option>
          ))}
        </select>
        <div className="filter-bar__search">
          <label htmlFor={searchId} className="visually-hidden">
            Search capabilities
          </label>
          <SearchIcon searching={view.searching} />
          <input
            ref={searchRef}
            id={searchId}
            type="search"
            className="input"
            placeholder="Search capabilities"
            aria-keyshortcuts="/"
            autoComplete="off"
            spellCheck={false}
            value={query}
            onChange={(event) => {
              searchAhead(event.target.value);
              setQuery(event.target.value);
            }}
            onKeyDown={(event) => {
              if (event.key !== 'ArrowDown') return;
              event.preventDefault();
              onEnterList();
            }}
          />
          <kbd className="filter-bar__shortcut" aria-hidden="true" title="Press / to search from anywhere">
            /
          </kbd>
        </div>
      </div>
      <p className="filter-bar__summary" aria-live="polite">
        {view.resultsFor ? (
          <>
            {view.ranked} {view.ranked === 1 ? 'match' : 'matches'} for “{view.resultsFor}”, {view.shown.length} shown
          </>
        ) : (
          <>
            Showing {view.shown.length} of {view.ranked}
          </>
        )}
      </p>
    </div>
  );
}

/** How long a search runs before its icon turns into a spinner: most answer within a frame or two. */
const SLOW_SEARCH_MS = 200;

/**
 * The search box's icon, a spinner while a search is slow to answer. Not on every keystroke: a
 * spinning icon kept the page drawing frames while it waited for each answer, which the console
 * bench saw as about 7 ms more from the answer to the list changed, nearly half of a keystroke's
 * time beyond the bare page's.
 */
function SearchIcon({ searching }: { searching: boolean }) {
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    if (!searching) return;
    const timer = setTimeout(() => setSlow(true), SLOW_SEARCH_MS);
    return () => {
      clearTimeout(timer);
      setSlow(false);
    };
  }, [searching]);
  const spinning = searching && slow;
  return <Icon name={spinning ? 'spinner' : 'search'} className={`filter-bar__search-icon ${spinning ? 'spin' : ''}`} />;
}

const sum = (counts: ReadonlyMap<string, number>) => [...counts.values()].reduce((total, count) => total + count, 0);
