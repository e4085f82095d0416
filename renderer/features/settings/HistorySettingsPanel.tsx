/**
 * Settings → Run history: how much of Recent executions the gateway keeps, and whether it keeps
 * them across restarts (in `executions.sqlite` in the data dir, never in the ledger). Off by
 * default, since results can hold what the operator would rather not have on disk.
 */
import { useId, useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { DEFAULT_HISTORY_SETTINGS, HistorySettings, MAX_HISTORY_AGE_DAYS, MAX_HISTORY_ENTRIES } from '../../../shared/executions';
import { toErrorBody } from '../../api/errors';
import { useTransport } from '../../api/hooks';
import { useExecutions } from '../../state/executionsStore';
import { ErrorNotice } from '../../ui/ErrorNotice';

export function HistorySettingsPanel({ onDone }: { onDone(): void }) {
  const saved = useExecutions((state) => state.settings) ?? DEFAULT_HISTORY_SETTINGS;
  const received = useExecutions((state) => state.received);
  const transport = useTransport();
  const [persist, setPersist] = useState(saved.persist);
  const [maxEntries, setMaxEntries] = useState(String(saved.maxEntries));
  const [maxAgeDays, setMaxAgeDays] = useState(String(saved.maxAgeDays));
  const [problem, setProblem] = useState<string>();
  const ids = { entries: useId(), age: useId(), problem: useId() };
  const save = useMutation({
    mutationFn: (settings: HistorySettings) => transport.saveHistorySettings(settings),
    onSuccess: (view) => {
      received(view, true);
      onDone();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = HistorySettings.safeParse({ persist, maxEntries: Number(maxEntries), maxAgeDays: Number(maxAgeDays) });
    if (!parsed.success) {
      setProblem(`Keep 1–${MAX_HISTORY_ENTRIES} runs, for 1–${MAX_HISTORY_AGE_DAYS} days (whole numbers).`);
      return;
    }
    setProblem(undefined);
    save.mutate(parsed.data);
  };

  return (
    <form className="settings" onSubmit={submit} noValidate>
      <fieldset className="settings__group">
        <legend>Run history</legend>
        <p className="muted">
          Recent executions lists your own calls (from this console, <code>capstan call</code> and curl with your token) with their arguments and
          results. The gateway keeps them, so a reload shows them again; agents&apos; calls are not kept here. The ledger never holds these values, only
          their digests, and they are never logged.
        </p>
        <label className="checkbox">
          <input type="checkbox" checked={persist} onChange={(event) => setPersist(event.target.checked)} />
          Keep runs across restarts
          <span className="muted">in executions.sqlite in the data dir; turning this off deletes that file</span>
        </label>
        <div className="settings__numbers">
          <label htmlFor={ids.entries}>Runs kept</label>
          <input
            id={ids.entries}
            className="input"
            type="number"
            inputMode="numeric"
            min={1}
            max={MAX_HISTORY_ENTRIES}
            value={maxEntries}
            onChange={(event) => setMaxEntries(event.target.value)}
            aria-invalid={problem !== undefined}
            aria-describedby={problem ? ids.problem : undefined}
          />
          <label htmlFor={ids.age}>Days kept</label>
          <input
            id={ids.age}
            className="input"
            type="number"
            inputMode="numeric"
            min={1}
            max={MAX_HISTORY_AGE_DAYS}
            value={maxAgeDays}
            onChange={(event) => setMaxAgeDays(event.target.value)}
            aria-invalid={problem !== undefined}
            aria-describedby={problem ? ids.problem : undefined}
          />
        </div>
        {problem && (
          <p id={ids.problem} className="form-field__error" role="alert">
            {problem}
          </p>
        )}
      </fieldset>
      {save.error && <ErrorNotice what="Could not save" error={toErrorBody(save.error)} />}
      <div className="dialog__footer">
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="button button--primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}
