/**
 * Settings: the one-click whitelist (WhitelistEditor), the agents' tokens (AgentsPanel) and how
 * Recent executions are kept (HistorySettingsPanel), as tabs. Tabs follow the ARIA pattern: one Tab stop, arrow keys move between them.
 */
import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { useConsoleUi } from '../../state/uiStore';
import { Dialog } from '../../ui/Dialog';
import type { RegistryEntry } from '../registry/useRegistry';
import { AgentsPanel } from './AgentsPanel';
import { HistorySettingsPanel } from './HistorySettingsPanel';
import { WhitelistEditor } from './WhitelistEditor';

const tabs = [
  { id: 'whitelist', label: 'One-click tools' },
  { id: 'agents', label: 'Agents' },
  { id: 'history', label: 'Run history' },
] as const;
type SettingsTab = (typeof tabs)[number]['id'];

export function SettingsDialog({ entries, whitelist }: { entries: readonly RegistryEntry[]; whitelist: string[] }) {
  const open = useConsoleUi((ui) => ui.settingsOpen);
  const setOpen = useConsoleUi((ui) => ui.setSettingsOpen);
  return (
    <Dialog open={open} onClose={() => setOpen(false)} title="Settings" className="settings-dialog">
      {/* Dialog mounts its body only while open, so every opening starts from what the gateway has saved, on the first tab. */}
      <SettingsTabs entries={entries} whitelist={whitelist} onDone={() => setOpen(false)} />
    </Dialog>
  );
}

function SettingsTabs({ entries, whitelist, onDone }: { entries: readonly RegistryEntry[]; whitelist: string[]; onDone(): void }) {
  const [tab, setTab] = useState<SettingsTab>('whitelist');
  const baseId = useId();
  const tabRefs = useRef(new Map<SettingsTab, HTMLButtonElement>());
  const onTabKey = (event: KeyboardEvent) => {
    const index = tabs.findIndex((candidate) => candidate.id === tab);
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = tabs[(next + tabs.length) % tabs.length]!.id;
    setTab(target);
    tabRefs.current.get(target)?.focus();
  };
  return (
    <>
      <div className="settings-tabs" role="tablist" aria-label="Settings" onKeyDown={onTabKey}>
        {tabs.map(({ id, label }) => (
          <button
            key={id}
            ref={(element) => {
              if (element) tabRefs.current.set(id, element);
              else tabRefs.current.delete(id);
            }}
            type="button"
            role="tab"
            id={`${baseId}-${id}-tab`}
            className="settings-tabs__tab"
            aria-selected={id === tab}
            aria-controls={id === tab ? `${baseId}-${id}-panel` : undefined}
            tabIndex={id === tab ? 0 : -1}
            onClick={() => setTab(id)}
          >
            {label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${baseId}-${tab}-panel`} aria-labelledby={`${baseId}-${tab}-tab`}>
        {tab === 'whitelist' ? (
          <WhitelistEditor entries={entries} saved={whitelist} onDone={onDone} />
        ) : tab === 'agents' ? (
          <AgentsPanel onDone={onDone} />
        ) : (
          <HistorySettingsPanel onDone={onDone} />
        )}
      </div>
    </>
  );
}
