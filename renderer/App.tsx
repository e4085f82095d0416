/** The console page: header with the registry's figures, the tool list, the selected tool and recent executions. */
import { GatewayProblem } from './features/gateway/GatewayProblem';
import { RecentExecutions } from './features/executions/RecentExecutions';
import { RegistryCounts } from './features/registry/RegistryCounts';
import { ToolList } from './features/registry/ToolList';
import { useRegistry, type RegistryTool } from './features/registry/useRegistry';
import { SettingsDialog } from './features/settings/SettingsDialog';
import { ToolDetail } from './features/tool-detail/ToolDetail';
import { useConsoleUi } from './state/uiStore';
import { Icon } from './ui/Icon';
import { Logo } from './ui/Logo';

export function App() {
  const registry = useRegistry();
  const setSettingsOpen = useConsoleUi((ui) => ui.setSettingsOpen);
  const { entries, whitelist, error } = registry;
  const retry = () => void registry.retry();

  return (
    <div className="app">
      <header className="app-header">
        <div className="brand">
          <Logo />
          <h1 className="brand__name">Capstan</h1>
          <span className="brand__tagline">Capability console</span>
        </div>
        {entries && <RegistryCounts entries={entries} generation={registry.generation} />}
        <button type="button" className="button app-header__settings" onClick={() => setSettingsOpen(true)} disabled={!entries}>
          <Icon name="settings" />
          Settings
        </button>
      </header>

      {entries && whitelist ? (
        <>
          {error && (
            <div className="banner" role="alert">
              <Icon name="alert" />
              <span>Lost contact with the gateway ({error.message}). Showing the registry as last received.</span>
              <button type="button" className="button button--small" onClick={retry} disabled={registry.isFetching}>
                Retry
              </button>
            </div>
          )}
          <main className="workspace">
            <ToolList entries={entries} />
            <div className="detail-pane">
              <SelectedTool entries={entries} />
              <RecentExecutions />
            </div>
          </main>
          <SettingsDialog entries={entries} whitelist={whitelist} />
        </>
      ) : error ? (
        <main className="workspace workspace--message">
          <GatewayProblem error={error} onRetry={retry} retrying={registry.isFetching} />
        </main>
      ) : (
        <main className="workspace workspace--message">
          <p className="loading" role="status">
            <Icon name="spinner" className="spin" /> Loading the registry from the gateway…
          </p>
        </main>
      )}
    </div>
  );
}

function SelectedTool({ entries }: { entries: RegistryTool[] }) {
  const selectedTool = useConsoleUi((ui) => ui.selectedTool);
  if (selectedTool === null) {
    return (
      <div className="placeholder">
        <p>Select a tool to inspect its contract and run it.</p>
        <p className="muted">
          <strong>Executable</strong> tools run with one click, <strong>read-only</strong> tools can be inspected only, and{' '}
          <strong>locked</strong> tools run after you review and confirm the exact call.
        </p>
      </div>
    );
  }
  const entry = entries.find((candidate) => candidate.tool.name === selectedTool);
  if (!entry) {
    return (
      <div className="placeholder" role="status">
        <p>
          <code>{selectedTool}</code> is no longer in the registry.
        </p>
      </div>
    );
  }
  // A fresh form per tool: arguments typed for one tool never leak into another.
  return <ToolDetail key={entry.tool.name} entry={entry} />;
}
