/**
 * RJSF's default array buttons draw Bootstrap glyphicons, which the console does not ship; these
 * say what they do in words, styled like the rest of the console.
 */
import type { IconButtonProps } from '@rjsf/utils';

function textButton(label: string, { name, danger = false }: { name?: string; danger?: boolean } = {}) {
  const Button = ({ onClick, disabled, id }: IconButtonProps) => (
    <button
      type="button"
      id={id}
      className={`button button--small ${danger ? 'button--danger' : ''}`}
      onClick={onClick}
      disabled={disabled}
      aria-label={name}
      title={name}
    >
      {label}
    </button>
  );
  Button.displayName = `FormButton(${label})`;
  return Button;
}

export const formButtonTemplates = {
  AddButton: textButton('+ Add item'),
  CopyButton: textButton('Copy'),
  MoveUpButton: textButton('↑', { name: 'Move up' }),
  MoveDownButton: textButton('↓', { name: 'Move down' }),
  RemoveButton: textButton('Remove', { danger: true }),
  ClearButton: textButton('Clear'),
};
