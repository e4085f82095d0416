/** Steer: adds the operator's note to the running task; it starts a new step. */
import { useId, useState, type FormEvent } from 'react';
import { toErrorBody } from '../../api/errors';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { useTaskCommand } from './useTasks';

export function SteerForm({ sessionId, taskId }: { sessionId: string; taskId: string }) {
  const command = useTaskCommand();
  const [text, setText] = useState('');
  const id = useId();
  const error = command.error && toErrorBody(command.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (command.isPending || text.trim() === '') return;
    command.mutate({ type: 'action', action: { action: 'steer', sessionId, taskId, text } }, { onSuccess: () => setText('') });
  };

  return (
    <form className="steer-form" onSubmit={submit}>
      <label htmlFor={id} className="visually-hidden">
        Steer note
      </label>
      <input
        id={id}
        className="input"
        value={text}
        onChange={(event) => setText(event.target.value)}
        placeholder="Steer: add a note for the running task"
        maxLength={10_000}
      />
      <button type="submit" className="button" aria-disabled={command.isPending || text.trim() === ''}>
        Steer
      </button>
      {error && <ErrorNotice what="Steer failed" error={error} />}
    </form>
  );
}
