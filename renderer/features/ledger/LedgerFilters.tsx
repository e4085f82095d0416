/**
 * The Ledger view's filters: task, requestId, capability, principal and kind, as GET /ledger
 * takes them. What the operator types matches any part of an id (`match: 'contains'`) and
 * applies as they type, once they pause (Enter applies at once); the kind applies when chosen.
 * A filter set from elsewhere (a requestId chosen in Recent executions, a link in an entry)
 * matches whole ids, and shows up here as it is.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { LedgerKind } from '../../../shared/ledger';
import { useCatalog } from '../../api/hooks';
import { cleaned, FILTER_FIELDS, filterKey, isEmptyFilter, type LedgerFilter } from '../../state/ledgerStore';
import { useConsoleUi } from '../../state/uiStore';
import { Icon } from '../../ui/Icon';
import { ExportLedger } from './ExportLedger';

type TextField = Exclude<(typeof FILTER_FIELDS)[number], 'kind'>;

/** How long typing may pause before the filter applies: one request per pause, not per key. */
export const TYPING_PAUSE_MS = 250;

const textFields: { field: TextField; label: string; placeholder: string }[] = [
  { field: 'requestId', label: 'requestId', placeholder: 'any part of it' },
  { field: 'taskId', label: 'Task', placeholder: 'task-… or any part' },
  { field: 'capability', label: 'Capability', placeholder: 'builtin:time_now' },
  { field: 'principal', label: 'Principal', placeholder: 'agent:…' },
];

export function LedgerFilters() {
  const filter = useConsoleUi((ui) => ui.ledgerFilter);
  const setFilter = useConsoleUi((ui) => ui.setLedgerFilter);
  const [draft, setDraft] = useState<LedgerFilter>(filter);
  const [shownFilter, setShownFilter] = useState(filter);
  // The filter set from elsewhere (a requestId chosen in Recent executions) replaces what was typed.
  if (shownFilter !== filter) {
    setShownFilter(filter);
    setDraft(filter);
  }
  const capabilities = useCatalog().data?.capabilities;
  const ids = { kind: useId(), list: useId(), text: { requestId: useId(), taskId: useId(), capability: useId(), principal: useId() } };

  const apply = (next: LedgerFilter) => {
    const wanted = cleaned(next);
    // The same entries asked again would only restart the search.
    if (filterKey(wanted) !== filterKey(useConsoleUi.getState().ledgerFilter)) setFilter(wanted);
  };

  // Typing applies after a pause; a newer keystroke restarts the wait, Enter or a kind skips it.
  const typing = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(typing.current), []);
  const applySoon = (next: LedgerFilter) => {
    clearTimeout(typing.current);
    typing.current = setTimeout(() => apply(next), TYPING_PAUSE_MS);
  };
  const applyNow = (next: LedgerFilter) => {
    clearTimeout(typing.current);
    apply(next);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    applyNow(draft);
  };

  return (
    <form className="ledger-filters" onSubmit={submit} aria-label="Ledger filters" role="search">
      {textFields.map(({ field, label, placeholder }) => (
        <div key={field} className="ledger-filters__field">
          <label htmlFor={ids.text[field]}>{label}</label>
          <input
            id={ids.text[field]}
            className="input"
            type="search"
            value={draft[field] ?? ''}
            placeholder={placeholder}
            onChange={(event) => {
              const next = { ...draft, [field]: event.target.value, match: 'contains' as const };
              setDraft(next);
              applySoon(next);
            }}
            list={field === 'capability' ? ids.list : undefined}
            spellCheck={false}
            autoComplete="off"
          />
        </div>
      ))}
      <datalist id={ids.list}>
        {capabilities?.map((capability) => (
          <option key={capability.contract.id} value={capability.contract.id} />
        ))}
      </datalist>
      <div className="ledger-filters__field ledger-filters__field--kind">
        <label htmlFor={ids.kind}>Kind</label>
        <select
          id={ids.kind}
          className="input"
          value={draft.kind ?? ''}
          onChange={(event) => {
            const next = { ...draft, kind: event.target.value === '' ? undefined : (event.target.value as LedgerKind) };
            setDraft(next);
            applyNow(next);
          }}
        >
          <option value="">Every kind</option>
          {LedgerKind.options.map((kind) => (
            <option key={kind} value={kind}>
              {kind}
            </option>
          ))}
        </select>
      </div>
      <div className="ledger-filters__actions">
        <button type="submit" className="button">
          <Icon name="filter" />
          Apply
        </button>
        <button
          type="button"
          className="button button--quiet"
          onClick={() => {
            setDraft({});
            applyNow({});
          }}
          disabled={isEmptyFilter(filter) && isEmptyFilter(cleaned(draft))}
        >
          Clear
        </button>
        <ExportLedger filter={filter} />
      </div>
    </form>
  );
}
