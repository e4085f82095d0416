/**
 * An id in a narrow place: its start is shortened with an ellipsis when it does not fit, its
 * tail always shows (ui/format.ts idParts), and the whole id is its title and its text.
 */
import { idParts } from './format';

export function IdText({ id, className = '' }: { id: string; className?: string }) {
  const { head, tail } = idParts(id);
  return (
    <span className={`id-text ${className}`} title={id}>
      <span className="id-text__head">{head}</span>
      {tail && <span className="id-text__tail">{tail}</span>}
    </span>
  );
}
