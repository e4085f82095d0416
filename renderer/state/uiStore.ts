/**
 * What the operator is looking at: the search and filters, the selected capability, which
 * dialog or drawer is open, and the activity dock (its view, its size, the Tasks view's session
 * and the Ledger view's filter). Server data (catalog, settings, tasks) lives in react-query and
 * the live ledger in its own store; only view state lives here.
 */
import { create } from 'zustand';
import type { CapabilityKind } from '../../shared/capability';
import type { LiveStatus } from '../api/transport';
import type { ToolFilter } from '../../shared/policy';
import { DEFAULT_SESSION } from '../../shared/tasks';
import type { LedgerFilter } from './ledgerStore';
import { followViewInUrl, startingSearch, viewFromUrl } from './urlState';

export type KindFilter = 'all' | CapabilityKind;
/** Drawers opened from the header. */
export type Panel = 'providers' | 'diagnostics' | 'pins';
/** The views in the activity dock along the bottom of the window. */
export type DockTab = 'tasks' | 'ledger' | 'agent-calls' | 'approvals';
/** How much of the window the dock takes: only its tabs, a part, or most of it. */
export type DockSize = 'collapsed' | 'open' | 'maximized';

interface ConsoleUiState {
  filter: ToolFilter;
  kind: KindFilter;
  /** A provider name, or null for every provider. */
  provider: string | null;
  /** The search box, as typed. */
  query: string;
  /** A capability id; the catalog may change underneath it, so views look it up and cope with it being gone. */
  selectedId: string | null;
  /** The capability whose inspect drawer is open. */
  inspectingId: string | null;
  panel: Panel | null;
  /** The held tool the Held for review panel shows; null lists them. */
  reviewingPin: string | null;
  settingsOpen: boolean;
  /** Whether the gateway's events are reaching the page. */
  liveStatus: LiveStatus;
  dockTab: DockTab;
  dockSize: DockSize;
  /** The session the Tasks view shows and acts in: the console's own unless the operator picks another. */
  taskSession: string;
  /** What the Ledger view shows; empty shows every entry. */
  ledgerFilter: LedgerFilter;
  /** Grows each time the operator asks for the Approvals queue (the header's indicator, the `a` key): the queue brings its oldest approval into view. */
  approvalsRequested: number;
  setFilter(filter: ToolFilter): void;
  setKind(kind: KindFilter): void;
  setProvider(provider: string | null): void;
  setQuery(query: string): void;
  clearFilters(): void;
  select(id: string | null): void;
  inspect(id: string | null): void;
  openPanel(panel: Panel | null): void;
  /** Opens the Held for review panel on one held tool (null: on the list of them). */
  reviewPin(id: string | null): void;
  setSettingsOpen(open: boolean): void;
  setLiveStatus(status: LiveStatus): void;
  /** Shows a dock view, opening the dock if it is collapsed. */
  openDock(tab: DockTab): void;
  setDockSize(size: DockSize): void;
  setTaskSession(session: string): void;
  setLedgerFilter(filter: LedgerFilter): void;
  /** Opens the Ledger view on these entries (a requestId or task chosen elsewhere on the page). */
  showLedger(filter: LedgerFilter): void;
  /** Opens the Approvals view and asks it to bring the oldest waiting approval, Approve and Deny included, into view. */
  showApprovals(): void;
}

export const useConsoleUi = create<ConsoleUiState>()((set) => ({
  filter: 'all',
  kind: 'all',
  provider: null,
  query: '',
  selectedId: null,
  // A link or a reload opens the view its address names (urlState.ts).
  ...viewFromUrl(startingSearch()),
  inspectingId: null,
  panel: null,
  reviewingPin: null,
  settingsOpen: false,
  liveStatus: 'connecting',
  dockTab: 'tasks',
  dockSize: 'collapsed',
  taskSession: DEFAULT_SESSION,
  ledgerFilter: {},
  approvalsRequested: 0,
  setFilter: (filter) => set({ filter }),
  setKind: (kind) => set({ kind }),
  setProvider: (provider) => set({ provider }),
  setQuery: (query) => set({ query }),
  clearFilters: () => set({ filter: 'all', kind: 'all', provider: null, query: '' }),
  select: (selectedId) => set({ selectedId }),
  // One drawer at a time: inspecting from a panel replaces the panel.
  inspect: (inspectingId) => set({ inspectingId, panel: null }),
  openPanel: (panel) => set({ panel, inspectingId: null }),
  reviewPin: (reviewingPin) => set({ panel: 'pins', reviewingPin, inspectingId: null }),
  setSettingsOpen: (settingsOpen) => set({ settingsOpen }),
  setLiveStatus: (liveStatus) => set({ liveStatus }),
  openDock: (dockTab) => set((ui) => ({ dockTab, dockSize: ui.dockSize === 'collapsed' ? 'open' : ui.dockSize })),
  setDockSize: (dockSize) => set({ dockSize }),
  setTaskSession: (taskSession) => set({ taskSession }),
  setLedgerFilter: (ledgerFilter) => set({ ledgerFilter }),
  showLedger: (ledgerFilter) => set((ui) => ({ ledgerFilter, dockTab: 'ledger', dockSize: ui.dockSize === 'collapsed' ? 'open' : ui.dockSize })),
  showApprovals: () =>
    set((ui) => ({ dockTab: 'approvals', dockSize: ui.dockSize === 'collapsed' ? 'open' : ui.dockSize, approvalsRequested: ui.approvalsRequested + 1 })),
}));

followViewInUrl((listener) =>
  useConsoleUi.subscribe(({ selectedId, query, filter, kind, provider }) => listener({ selectedId, query, filter, kind, provider })),
);
