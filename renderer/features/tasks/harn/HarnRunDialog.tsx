/**
 * Starts a Harn script as a task in the shown session: the script's absolute path on the
 * gateway's machine and, optionally, the prompt it is given. The gateway's refusal (no such
 * file, a task already active, Harn not installed) shows in place, with its code.
 */
import { useId, useState, type FormEvent } from 'react';
import { toErrorBody } from '../../../api/errors';
import { Dialog } from '../../../ui/Dialog';
import { ErrorNotice } from '../../../ui/ErrorNotice';
import { useStartHarnRun } from './useHarnRuns';

export function HarnRunDialog({ open, sessionId, onClose }: { open: boolean; sessionId: string; onClose(): void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Run a Harn script" className="task-dialog">
      {/* A fresh form per opening. */}
      {open && <HarnRunForm sessionId={sessionId} onDone={onClose} />}
    </Dialog>
  );
}

function HarnRunForm({ sessionId, onDone }: { sessionId: string; onDone(): void }) {
  const start = useStartHarnRun();
  const [script, setScript] = useState('');
  const [prompt, setPrompt] = useState('');
  const ids = { script: useId(), scriptHint: useId(), prompt: useId() };
  const error = start.error && toErrorBody(start.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (start.isPending) return;
    start.mutate({ script: script.trim(), sessionId, ...(prompt.trim() === '' ? {} : { prompt }) }, { onSuccess: onDone });
  };

  return (
    <form className="task-form" onSubmit={submit}>
      <p className="muted">
        The script runs as a task in session “{sessionId}”, as its own agent: every tool call it makes goes through the policy path, and a call that
        needs confirmation waits for you in Approvals.
      </p>
      <div className="field">
        <label htmlFor={ids.script}>Script</label>
        <input
          id={ids.script}
          className="input"
          value={script}
          onChange={(event) => setScript(event.target.value)}
          required
          maxLength={4096}
          placeholder="/home/me/pipelines/inspect_readme.harn"
          aria-describedby={ids.scriptHint}
          spellCheck={false}
          autoFocus
        />
        <p id={ids.scriptHint} className="field__hint muted">
          An absolute path on the machine the gateway runs on.
        </p>
      </div>
      <div className="field">
        <label htmlFor={ids.prompt}>Prompt (optional)</label>
        <textarea id={ids.prompt} className="input" value={prompt} onChange={(event) => setPrompt(event.target.value)} maxLength={10_000} rows={3} />
      </div>
      {error && <ErrorNotice what="Run a Harn script failed" error={error} />}
      <div className="dialog__footer">
        <button type="button" className="button" onClick={onDone}>
          Close
        </button>
        <button type="submit" className="button button--primary" aria-disabled={start.isPending}>
          {start.isPending ? 'Starting…' : 'Run script'}
        </button>
      </div>
    </form>
  );
}
