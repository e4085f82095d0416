/**
 * One argument of a prompt or one variable of a template: a text field whose suggestions come
 * from the server's `completion/complete` (POST /completions) as the operator types, offered
 * through a native datalist (keyboard and screen readers know it). A server without completions
 * simply offers none; the field works the same.
 */
import { useQuery } from '@tanstack/react-query';
import { useDeferredValue, useId, useState } from 'react';
import { useTransport } from '../../api/hooks';

interface CompletedFieldProps {
  /** The prompt's or template's capability id. */
  capability: string;
  name: string;
  label: string;
  description?: string | undefined;
  required: boolean;
  value: string;
  /** The other arguments' values, which a server may narrow its suggestions by. */
  context: Record<string, string>;
  onChange(value: string): void;
}

export function CompletedField({ capability, name, label, description, required, value, context, onChange }: CompletedFieldProps) {
  const transport = useTransport();
  const inputId = useId();
  const listId = useId();
  const hintId = useId();
  const [focused, setFocused] = useState(false);
  // Asked for the value the operator settled on, not every keystroke's.
  const asked = useDeferredValue(value);
  const others = Object.fromEntries(Object.entries(context).filter(([key, given]) => key !== name && given !== ''));
  const suggestions = useQuery({
    queryKey: ['completions', capability, name, asked, others],
    queryFn: ({ signal }) => transport.completeArgument({ id: capability, argument: { name, value: asked }, context: others }, { signal }),
    enabled: focused,
    staleTime: 30_000,
    retry: false,
  });
  const values = suggestions.data?.values ?? [];
  return (
    <div className="field">
      <label htmlFor={inputId}>
        {label}
        {required && <span className="required" aria-hidden="true"> *</span>}
      </label>
      <input
        id={inputId}
        className="input"
        name={name}
        value={value}
        required={required}
        aria-required={required}
        list={listId}
        autoComplete="off"
        aria-describedby={description ? hintId : undefined}
        onFocus={() => setFocused(true)}
        onChange={(event) => onChange(event.target.value)}
      />
      <datalist id={listId} data-testid={`suggestions-${name}`}>
        {values.map((suggestion) => (
          <option key={suggestion} value={suggestion} />
        ))}
      </datalist>
      {description && (
        <span id={hintId} className="field__hint muted">
          {description}
        </span>
      )}
    </div>
  );
}
