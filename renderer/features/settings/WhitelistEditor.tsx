/**
 * The operator's whitelist: which tools the console may run with one click. It is saved by the
 * gateway, so it survives reloads and restarts. It can only tighten policy: tools that need
 * confirmation are never one-click, whatever the list says.
 */
import { useState } from 'react';
import { useSaveSettings } from '../../api/hooks';
import { toErrorBody } from '../../api/errors';
import { MutatingBadge, RiskBadge } from '../../ui/badges';
import { errorText } from '../../ui/errorText';
import { Icon } from '../../ui/Icon';
import { isToolEntry, type RegistryEntry } from '../registry/useRegistry';

export function WhitelistEditor({ entries, saved, onDone }: { entries: readonly RegistryEntry[]; saved: string[]; onDone(): void }) {
  const [draft, setDraft] = useState(() => new Set(saved));
  const save = useSaveSettings();
  // The whitelist is about tools; skills are never run from the console.
  const tools = entries.filter(isToolEntry).map((entry) => entry.contract);
  const eligible = tools.filter((tool) => !tool.needConfirm);
  const alwaysConfirm = tools.filter((tool) => tool.needConfirm);

  const toggle = (name: string, on: boolean) =>
    setDraft((current) => {
      const next = new Set(current);
      if (on) next.add(name);
      else next.delete(name);
      return next;
    });

  return (
    <form
      className="settings"
      onSubmit={async (event) => {
        event.preventDefault();
        // Names no longer in the registry are kept: if the tool comes back, so does the operator's choice.
        await save.mutateAsync({ whitelist: [...draft] }).then(onDone, () => undefined);
      }}
    >
      <fieldset className="settings__group">
        <legend>One-click tools</legend>
        <p className="muted">One-click tools run here with Execute. The others are view only here: you can inspect them, not run them. A tool marked “Writes data” changes something when it runs.</p>
        <ul className="settings__list">
          {eligible.map((tool) => (
            <li key={tool.id}>
              <label className="checkbox">
                <input type="checkbox" checked={draft.has(tool.name)} onChange={(event) => toggle(tool.name, event.target.checked)} />
                <code>{tool.name}</code>
                <span className="muted">{tool.title}</span>
                <RiskBadge risk={tool.riskLevel} />
                {tool.mutating && <MutatingBadge />}
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      {alwaysConfirm.length > 0 && (
        <fieldset className="settings__group">
          <legend>Always need confirmation</legend>
          <p className="muted">
            These tools cannot be one-click: the gateway requires a confirmation for every call, so they run only through Review and run,
            where you see the exact arguments first.
          </p>
          <ul className="settings__list">
            {alwaysConfirm.map((tool) => (
              <li key={tool.id} className="settings__locked">
                <Icon name="lock" />
                <code>{tool.name}</code>
                <span className="muted">{tool.title}</span>
                <RiskBadge risk={tool.riskLevel} />
              </li>
            ))}
          </ul>
        </fieldset>
      )}
      {save.error && (
        <p className="notice notice--error" role="alert">
          Could not save: {errorText(toErrorBody(save.error))}
        </p>
      )}
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
