/**
 * The providers behind the catalog: each one's kind, binding generation and counts, and a switch
 * that enables or disables it at once. A disabled provider's capabilities leave the catalog,
 * every task's view of it and model discovery; its figures stay here so the operator can judge
 * what re-enabling brings back.
 */
import { useState } from 'react';
import type { ProviderInfo } from '../../../shared/capability';
import { useSetProviderEnabled } from '../../api/hooks';
import { toErrorBody } from '../../api/errors';
import { useConsoleUi } from '../../state/uiStore';
import { Dialog } from '../../ui/Dialog';
import { errorText } from '../../ui/errorText';

export function ProvidersPanel({ providers }: { providers: readonly ProviderInfo[] }) {
  const open = useConsoleUi((ui) => ui.panel === 'providers');
  const openPanel = useConsoleUi((ui) => ui.openPanel);
  const setEnabled = useSetProviderEnabled();
  // The switch moves as soon as it is pressed; the gateway's answer (or failure) settles it.
  const [switching, setSwitching] = useState<ReadonlyMap<string, boolean>>(new Map());
  const toggle = (provider: string, enabled: boolean) => {
    setSwitching((current) => new Map(current).set(provider, enabled));
    setEnabled.mutate(
      { provider, enabled },
      {
        onSettled: () =>
          setSwitching((current) => {
            const next = new Map(current);
            next.delete(provider);
            return next;
          }),
      },
    );
  };
  return (
    <Dialog open={open} onClose={() => openPanel(null)} variant="drawer" className="providers-panel" title="Providers">
      <p className="muted">Switching a provider takes effect at once, in this console and in every task.</p>
      <ul className="provider-list">
        {providers.map((provider) => (
          <li key={provider.name} className={`provider ${provider.enabled ? '' : 'provider--disabled'}`} aria-label={provider.name}>
            <div className="provider__head">
              <h3 className="provider__name">
                <code>{provider.name}</code>
              </h3>
              <span className="badge badge--plain">{provider.kind}</span>
              <label className="switch">
                <input
                  type="checkbox"
                  role="switch"
                  checked={switching.get(provider.name) ?? provider.enabled}
                  aria-busy={switching.has(provider.name)}
                  onChange={(event) => toggle(provider.name, event.target.checked)}
                />
                <span className="switch__track" aria-hidden="true" />
                <span className="switch__label">Enabled</span>
              </label>
            </div>
            <dl className="provider__figures">
              <Figure name="Binding generation" value={provider.bindingGeneration} testId="binding-generation" />
              <Figure name="Tools" value={provider.tools} testId="tools" />
              <Figure name="Skills" value={provider.skills} testId="skills" />
              <Figure name="Diagnostics" value={provider.diagnostics} testId="diagnostics" />
            </dl>
            {!provider.enabled && provider.tools + provider.skills > 0 && (
              <p className="muted">Its capabilities are out of the catalog while it is disabled.</p>
            )}
          </li>
        ))}
      </ul>
      {setEnabled.error && (
        <p className="notice notice--error" role="alert">
          Could not switch the provider: {errorText(toErrorBody(setEnabled.error))}
        </p>
      )}
    </Dialog>
  );
}

function Figure({ name, value, testId }: { name: string; value: number; testId: string }) {
  return (
    <div>
      <dt>{name}</dt>
      <dd data-testid={testId}>{value}</dd>
    </div>
  );
}
