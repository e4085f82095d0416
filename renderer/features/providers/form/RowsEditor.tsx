/**
 * Editable rows of a server entry: arguments (values only), env variables and headers (name and
 * value). Values the gateway masked stay masked until replaced (SecretInput); their names stay
 * fixed meanwhile, since the gateway keeps a stored secret only under the name it has it by.
 */
import { Icon } from '../../../ui/Icon';
import { Field, fieldId } from './Field';
import { looksSecret, type FieldErrors, type Row } from './serverDraft';
import { SecretInput } from './SecretInput';

interface RowsEditorProps {
  formId: string;
  field: 'args' | 'env' | 'headers' | 'roots';
  /** "Arguments", "Environment", "Headers": the group's legend. */
  legend: string;
  hint: string;
  /** What one row is called on its buttons: "argument", "variable", "header". */
  noun: string;
  rows: readonly Row[];
  errors: FieldErrors;
  onChange(rows: Row[]): void;
}

export function RowsEditor({ formId, field, legend, hint, noun, rows, errors, onChange }: RowsEditorProps) {
  const keyed = field === 'env' || field === 'headers';
  const update = (index: number, change: Partial<Row>) => onChange(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));
  const hintId = fieldId(formId, `${field}.hint`);
  return (
    <fieldset className="rows-editor" aria-describedby={hintId}>
      <legend>{legend}</legend>
      <p id={hintId} className="form-field__hint">
        {hint}
      </p>
      {rows.length > 0 && (
        <ol className="rows-editor__rows">
          {rows.map((row, index) => {
            const label = keyed ? row.key.trim() || `${noun} ${index + 1}` : `${noun} ${index + 1}`;
            return (
              <li key={index} className="rows-editor__row">
                {keyed && (
                  <Field id={fieldId(formId, `${field}.${index}.key`)} label="Name" error={errors[`${field}.${index}.key`]} className="rows-editor__key">
                    {(control) => (
                      <input
                        {...control}
                        className="input"
                        value={row.key}
                        readOnly={row.masked}
                        spellCheck={false}
                        autoComplete="off"
                        onChange={(event) => update(index, { key: event.target.value })}
                      />
                    )}
                  </Field>
                )}
                <Field
                  id={fieldId(formId, `${field}.${index}.value`)}
                  label={keyed ? 'Value' : `${noun.charAt(0).toUpperCase()}${noun.slice(1)} ${index + 1}`}
                  error={errors[`${field}.${index}.value`]}
                  className="rows-editor__value"
                >
                  {(control) => (
                    <SecretInput
                      control={control}
                      value={row.value}
                      masked={row.masked}
                      stored={row.stored}
                      conceal={row.stored !== undefined || (keyed && looksSecret(row.key))}
                      {...(field === 'roots' && { placeholder: '/home/me/project' })}
                      what={label}
                      onChange={(value, masked) => update(index, { value, masked })}
                    />
                  )}
                </Field>
                <button
                  type="button"
                  className="button button--small button--icon rows-editor__remove"
                  aria-label={`Remove ${label}`}
                  onClick={() => onChange(rows.filter((_, at) => at !== index))}
                >
                  <Icon name="trash" />
                </button>
              </li>
            );
          })}
        </ol>
      )}
      <button type="button" className="button button--small" onClick={() => onChange([...rows, { key: '', value: '', masked: false }])}>
        <Icon name="plus" />
        Add {noun}
      </button>
    </fieldset>
  );
}
