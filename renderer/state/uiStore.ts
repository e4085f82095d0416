/**
 * What the operator is looking at: the search and filters, the selected capability and which
 * dialog or drawer is open. Server data (catalog, settings) lives in react-query; only view
 * state lives here.
 */
import { create } from 'zustand';
import type { CapabilityKind } from '../../shared/capability';
import type { LiveStatus } from '../api/transport';
import type { ToolFilter } from '../../shared/policy';

export type KindFilter = 'all' | CapabilityKind;
/** Drawers opened from the header. */
export type Panel = 'providers' | 'diagnostics';

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
  settingsOpen: boolean;
  /** Whether the gateway's events are reaching the page. */
  liveStatus: LiveStatus;
  setFilter(filter: ToolFilter): void;
  setKind(kind: KindFilter): void;
  setProvider(provider: string | null): void;
  setQuery(query: string): void;
  clearFilters(): void;
  select(id: string | null): void;
  inspect(id: string | null): void;
  openPanel(panel: Panel | null): void;
  setSettingsOpen(open: boolean): void;
  setLiveStatus(status: LiveStatus): void;
}

export const useConsoleUi = create<ConsoleUiState>()((set) => ({
  filter: 'all',
  kind: 'all',
  provider: null,
  query: '',
  selectedId: null,
  inspectingId: null,
  panel: null,
  settingsOpen: false,
  liveStatus: 'connecting',
  setFilter: (filter) => set({ filter }),
  setKind: (kind) => set({ kind }),
  setProvider: (provider) => set({ provider }),
  setQuery: (query) => set({ query }),
  clearFilters: () => set({ filter: 'all', kind: 'all', provider: null, query: '' }),
  select: (selectedId) => set({ selectedId }),
  // One drawer at a time: inspecting from a panel replaces the panel.
  inspect: (inspectingId) => set({ inspectingId, panel: null }),
  openPanel: (panel) => set({ panel, inspectingId: null }),
  setSettingsOpen: (settingsOpen) => set({ settingsOpen }),
  setLiveStatus: (liveStatus) => set({ liveStatus }),
}));
