/**
 * A labelled form control with its hint and its error, wired for assistive technology: the
 * control names both in aria-describedby and says aria-invalid while the error stands.
 */
import type { ReactNode } from 'react';

/** What a control needs to carry to be described by its field (spread onto the input). */
export interface ControlProps {
  id: string;
  'aria-invalid': boolean;
  'aria-describedby': string | undefined;
}

export function controlProps(id: string, error: string | undefined, hint: boolean): ControlProps {
  const describedBy = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  return { id, 'aria-invalid': error !== undefined, 'aria-describedby': describedBy || undefined };
}

interface FieldProps {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error: string | undefined;
  children(control: ControlProps): ReactNode;
  className?: string;
}

export function Field({ id, label, hint, error, children, className = '' }: FieldProps) {
  return (
    <div className={`form-field ${error ? 'form-field--invalid' : ''} ${className}`}>
      <label htmlFor={id} className="form-field__label">
        {label}
      </label>
      {children(controlProps(id, error, hint !== undefined))}
      {hint !== undefined && (
        <p id={`${id}-hint`} className="form-field__hint">
          {hint}
        </p>
      )}
      {error && <FieldError id={`${id}-error`} error={error} />}
    </div>
  );
}

export function FieldError({ id, error }: { id: string; error: string }) {
  return (
    <p id={id} className="form-field__error">
      {error}
    </p>
  );
}

/** A DOM id for a draft field (`env.0.key`), unique to one form. */
export const fieldId = (formId: string, field: string) => `${formId}-${field.replace(/\./g, '-')}`;
