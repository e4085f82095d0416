/** A server's optional limits, folded away unless one is set or wrong: most servers do well on the defaults. */
import { Field, fieldId } from './Field';
import type { FieldErrors, ServerDraft } from './serverDraft';

type Limit = 'timeoutMs' | 'toolTimeoutMs' | 'maxResultBytes';

const limits: readonly { field: Limit; label: string; hint: (fallback: string) => string; unit: 'ms' | 'bytes' }[] = [
  { field: 'timeoutMs', label: 'Request timeout (ms)', unit: 'ms', hint: (d) => `How long a request may go unanswered; progress on a tool call restarts it. Default ${d}.` },
  { field: 'toolTimeoutMs', label: 'Tool call limit (ms)', unit: 'ms', hint: (d) => `The most one tool call may take in all, progress or not. Default ${d}.` },
  { field: 'maxResultBytes', label: 'Largest result (bytes)', unit: 'bytes', hint: (d) => `A larger result fails with RESULT_TOO_LARGE. Default ${d}.` },
];

const readable = (value: number, unit: 'ms' | 'bytes') =>
  unit === 'ms' ? (value >= 60_000 ? `${value / 60_000} min` : `${value / 1000} s`) : `${(value / 1024 / 1024).toFixed(0)} MiB`;

interface LimitsFieldsProps {
  formId: string;
  draft: ServerDraft;
  errors: FieldErrors;
  defaults: Record<Limit, number>;
  onChange(change: Partial<ServerDraft>): void;
}

export function LimitsFields({ formId, draft, errors, defaults, onChange }: LimitsFieldsProps) {
  const open = limits.some(({ field }) => draft[field] !== '' || errors[field] !== undefined);
  return (
    <details className="server-form__limits" open={open || undefined}>
      <summary>Timeouts and limits (optional)</summary>
      {limits.map(({ field, label, hint, unit }) => (
        <Field key={field} id={fieldId(formId, field)} label={label} hint={hint(readable(defaults[field], unit))} error={errors[field]}>
          {(control) => (
            <input
              {...control}
              className="input input--number"
              inputMode="numeric"
              value={draft[field]}
              placeholder={String(defaults[field])}
              onChange={(event) => onChange({ [field]: event.target.value })}
            />
          )}
        </Field>
      ))}
    </details>
  );
}
