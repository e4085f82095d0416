/**
 * The console page: header with the catalog's figures, the agents' calls waiting for approval, the MCP tools held for review,
 * and the ways into Providers, Diagnostics and Settings; the capability list; the selected capability and recent executions; the
 * activity dock with the Tasks and Ledger views.
 */
import { toErrorBody } from './api/errors';
import { ApprovalsIndicator } from './features/approvals/ApprovalsIndicator';
import { ActivityDock } from './features/dock/ActivityDock';
import { DiagnosticsButton } from './features/diagnostics/DiagnosticsButton';
import { DiagnosticsPanel } from './features/diagnostics/DiagnosticsPanel';
import { ConnectionBanner } from './features/gateway/ConnectionBanner';
import { GatewayProblem } from './features/gateway/GatewayProblem';
import { RecentExecutions } from './features/executions/RecentExecutions';
import { InspectDrawer } from './features/inspect/InspectDrawer';
import { LiveIndicator } from './features/live/LiveIndicator';
import { HeldIndicator } from './features/pins/HeldIndicator';
import { PinsPanel } from './features/pins/PinsPanel';
import { ServerAskDialog } from './features/tool-detail/ServerAskDialog';
import { ProvidersButton } from './features/providers/ProvidersButton';
import { ProvidersPanel } from './features/providers/ProvidersPanel';
import { RegistryCounts } from './features/registry/RegistryCounts';
import { RegistryPane } from './features/registry/RegistryPane';
import { isToolEntry, useRegistry, type RegistryEntry, type SkillEntry } from './features/registry/useRegistry';
import { SettingsDialog } from './features/settings/SettingsDialog';
import { PromptDetail, type PromptEntry } from './features/prompt-detail/PromptDetail';
import { ResourceDetail, type ResourceEntry } from './features/resource-detail/ResourceDetail';
import { SkillDetail } from './features/skill-detail/SkillDetail';
import { ToolDetail } from './features/tool-detail/ToolDetail';
import { useConsoleUi } from './state/uiStore';
import { useLiveUpdates } from './useLiveUpdates';
import { Icon } from './ui/Icon';
import { Logo } from './ui/Logo';
import { ThemeSwitch } from './ui/ThemeSwitch';

export function App() {
  useLiveUpdates();
  const registry = useRegistry();
  const setSettingsOpen = useConsoleUi((ui) => ui.setSettingsOpen);
  // The layout gives the dock room by its size (styles/activity.css).
  const dockSize = useConsoleUi((ui) => ui.dockSize);
  const { entries, byId, whitelist, providers, diagnostics, held } = registry;
  const error = registry.error && toErrorBody(registry.error);
  const retry = () => void registry.retry();

  return (
    <div className={`app app--dock-${dockSize}`}>
      {/* Focus is moved by hand: the URL's fragment is the token's place, and a jump would replace it. */}
      <a
        className="skip-link"
        href="#workspace"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById('workspace')?.focus();
        }}
      >
        Skip to the console
      </a>
      <header className="app-header">
        <div className="brand">
          <Logo />
          <h1 className="brand__name">Capstan</h1>
          <span className="brand__tagline">Capability console</span>
        </div>
        {entries && whitelist && <RegistryCounts entries={entries} whitelist={whitelist} generation={registry.catalogGeneration} />}
        <nav className="app-header__nav" aria-label="Console">
          {entries && <ApprovalsIndicator />}
          {entries && <HeldIndicator held={held} />}
          <LiveIndicator />
          {entries && (
            <>
              <ProvidersButton disabled={providers.filter((provider) => !provider.enabled).length} />
              <DiagnosticsButton count={diagnostics.length} />
            </>
          )}
          <button type="button" className="button" title="Settings" onClick={() => setSettingsOpen(true)} disabled={!entries}>
            <Icon name="settings" />
            <span className="button__label">Settings</span>
          </button>
          <ThemeSwitch />
        </nav>
      </header>

      {entries && whitelist ? (
        <>
          <ConnectionBanner error={error ?? null} onRetry={retry} retrying={registry.isFetching} />
          <main id="workspace" className="workspace" tabIndex={-1}>
            <RegistryPane entries={entries} byId={byId} providers={providers} />
            <div className="workspace__side">
              <div className="detail-pane">
                <SelectedCapability byId={byId} />
                <RecentExecutions />
              </div>
              <ActivityDock />
            </div>
          </main>
          <SettingsDialog entries={entries} whitelist={whitelist} />
          <InspectDrawer byId={byId} catalogGeneration={registry.catalogGeneration} providers={providers} diagnostics={diagnostics} />
          <ProvidersPanel providers={providers} />
          <DiagnosticsPanel diagnostics={diagnostics} />
          <PinsPanel held={held} />
          <ServerAskDialog />
        </>
      ) : error ? (
        <main id="workspace" className="workspace workspace--message" tabIndex={-1}>
          <GatewayProblem problem={error} onRetry={retry} retrying={registry.isFetching} />
        </main>
      ) : (
        <main id="workspace" className="workspace workspace--message" tabIndex={-1}>
          <p className="loading" role="status">
            <Icon name="spinner" className="spin" /> Loading the catalog from the gateway…
          </p>
        </main>
      )}
    </div>
  );
}

function SelectedCapability({ byId }: { byId: ReadonlyMap<string, RegistryEntry> }) {
  const selectedId = useConsoleUi((ui) => ui.selectedId);
  if (selectedId === null) {
    return (
      <div className="placeholder">
        <p>Select a capability to inspect its contract and, for a tool, run it.</p>
        <p className="muted">
          The states say what this console lets you do: <strong>one-click</strong> tools run here with Execute,{' '}
          <strong>view only</strong> ones are for inspecting here (whether a tool writes data is its own badge), and <strong>locked</strong> ones
          run after you review and confirm the exact call. <strong>Skills</strong> are text for models: the console inspects them. An MCP
          server&apos;s <strong>resources</strong> are read and its <strong>prompts</strong> got from their own views.
        </p>
      </div>
    );
  }
  const entry = byId.get(selectedId);
  if (!entry) {
    return (
      <div className="placeholder" role="status">
        <p>
          <code>{selectedId}</code> is no longer in the catalog: its provider was disabled or no longer offers it.
        </p>
      </div>
    );
  }
  // A fresh view per capability: arguments typed for one tool never leak into another.
  if (isToolEntry(entry)) return <ToolDetail key={entry.id} entry={entry} />;
  if (entry.contract.kind === 'resource' || entry.contract.kind === 'resourceTemplate') return <ResourceDetail key={entry.id} entry={entry as ResourceEntry} />;
  if (entry.contract.kind === 'prompt') return <PromptDetail key={entry.id} entry={entry as PromptEntry} />;
  return <SkillDetail key={entry.id} entry={entry as SkillEntry} />;
}
