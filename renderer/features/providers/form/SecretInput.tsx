/**
 * A value that may be a secret. While it holds the gateway's mask it is read-only and shown as
 * the mask (the console never has the secret); Replace clears it for a new value, and "Keep
 * stored" puts the mask back, which tells the gateway to keep what it has.
 */
import { useRef } from 'react';
import { Icon } from '../../../ui/Icon';
import type { ControlProps } from './Field';

interface SecretInputProps {
  control: ControlProps;
  value: string;
  masked: boolean;
  /** The mask as received, when the value was a secret: Keep stored is offered while it is replaced. */
  stored: string | undefined;
  /** Hide what is typed (the name looks like it holds a secret, or the value was one). */
  conceal: boolean;
  /** For the buttons' names: "Authorization", "argument 2". */
  what: string;
  onChange(value: string, masked: boolean): void;
  placeholder?: string;
}

export function SecretInput({ control, value, masked, stored, conceal, what, onChange, placeholder }: SecretInputProps) {
  const input = useRef<HTMLInputElement>(null);
  if (masked) {
    return (
      <span className="secret-input">
        <input {...control} className="input input--masked" value={value} readOnly aria-readonly="true" data-masked="true" />
        <button
          type="button"
          className="button button--small"
          aria-label={`Replace the stored value of ${what}`}
          onClick={() => {
            onChange('', false);
            // The input re-renders editable; focus it for typing at once.
            requestAnimationFrame(() => input.current?.focus());
          }}
        >
          <Icon name="pencil" />
          Replace
        </button>
      </span>
    );
  }
  return (
    <span className="secret-input">
      <input
        {...control}
        ref={input}
        className="input"
        type={conceal ? 'password' : 'text'}
        autoComplete="off"
        spellCheck={false}
        value={value}
        placeholder={placeholder ?? (stored !== undefined ? 'New value' : undefined)}
        onChange={(event) => onChange(event.target.value, false)}
      />
      {stored !== undefined && (
        <button type="button" className="button button--small button--quiet" aria-label={`Keep the stored value of ${what}`} onClick={() => onChange(stored, true)}>
          Keep stored
        </button>
      )}
    </span>
  );
}
