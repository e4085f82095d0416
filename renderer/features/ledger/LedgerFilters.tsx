/**
 * The Ledger view's filters: exact task, requestId, capability, principal and kind, as GET /ledger takes
 * them. Text fields apply on Enter (or Apply), the kind at once. The form starts from the
 * filter in force, so a requestId chosen in Recent executions shows up here.
 */
import { useId, useState, type FormEvent } from 'react';
import { LedgerKind } from '../../../shared/ledger';
import { useCatalog } from '../../api/hooks';
import { FILTER_FIELDS, isEmptyFilter, type LedgerFilter } from '../../state/ledgerStore';
import { useConsoleUi } from '../../state/uiStore';
import { Icon } from '../../ui/Icon';

type TextField = Exclude<(typeof FILTER_FIELDS)[number], 'kind'>;

const textFields: { field: TextField; label: string; placeholder: string }[] = [
  { field: 'requestId', label: 'requestId', placeholder: 'tool-registry-…' },
  { field: 'taskId', label: 'Task', placeholder: 'task-…' },
  { field: 'capability', label: 'Capability', placeholder: 'builtin:time_now' },
  { field: 'principal', label: 'Principal', placeholder: 'agent:…' },
];

/** Blank fields are no filter. */
function cleaned(filter: LedgerFilter): LedgerFilter {
  const result: LedgerFilter = {};
  for (const field of FILTER_FIELDS) {
    const value = filter[field]?.trim();
    if (value) Object.assign(result, { [field]: value });
  }
  return result;
}

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

  const apply = (next: LedgerFilter) => setFilter(cleaned(next));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply(draft);
  };

  return (
    <form className="ledger-filters" onSubmit={submit} aria-label="Ledger filters">
      {textFields.map(({ field, label, placeholder }) => (
        <div key={field} className="ledger-filters__field">
          <label htmlFor={ids.text[field]}>{label}</label>
          <input
            id={ids.text[field]}
            className="input"
            value={draft[field] ?? ''}
            placeholder={placeholder}
            onChange={(event) => setDraft({ ...draft, [field]: event.target.value })}
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
            apply(next);
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
        <button type="button" className="button button--quiet" onClick={() => apply({})} disabled={isEmptyFilter(filter) && isEmptyFilter(cleaned(draft))}>
          Clear
        </button>
      </div>
    </form>
  );
}
