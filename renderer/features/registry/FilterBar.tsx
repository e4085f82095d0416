/** Risk filter (segmented buttons) and a free-text filter over name, title, description and tags. */
import { useId } from 'react';
import type { ToolFilter } from '../../../shared/policy';
import { useConsoleUi } from '../../state/uiStore';
import { Icon } from '../../ui/Icon';

export const filterLabels: Record<ToolFilter, string> = {
  all: 'All',
  'low-risk': 'Low risk',
  confirm: 'Confirmation required',
};

export function FilterBar({ shown, total }: { shown: number; total: number }) {
  const { filter, filterText, setFilter, setFilterText } = useConsoleUi();
  const inputId = useId();
  return (
    <div className="filter-bar">
      <div className="segmented" role="group" aria-label="Show tools">
        {(Object.keys(filterLabels) as ToolFilter[]).map((value) => (
          <button key={value} type="button" className="segmented__option" aria-pressed={filter === value} onClick={() => setFilter(value)}>
            {filterLabels[value]}
          </button>
        ))}
      </div>
      <div className="filter-bar__search">
        <label htmlFor={inputId} className="visually-hidden">
          Filter tools
        </label>
        <Icon name="search" className="filter-bar__search-icon" />
        <input
          id={inputId}
          type="search"
          className="input"
          placeholder="Filter by name, tag or description"
          autoComplete="off"
          spellCheck={false}
          value={filterText}
          onChange={(event) => setFilterText(event.target.value)}
        />
      </div>
      <p className="filter-bar__summary" aria-live="polite">
        Showing {shown} of {total}
      </p>
    </div>
  );
}
