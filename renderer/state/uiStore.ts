/**
 * What the operator is looking at: filters, the selected tool and which dialog is open.
 * Server data (tools, settings) lives in react-query; only view state lives here.
 */
import { create } from 'zustand';
import type { ToolFilter } from '../../shared/policy';

interface ConsoleUiState {
  filter: ToolFilter;
  filterText: string;
  /** A tool name; the registry may change underneath it, so views look it up and cope with it being gone. */
  selectedTool: string | null;
  settingsOpen: boolean;
  setFilter(filter: ToolFilter): void;
  setFilterText(text: string): void;
  clearFilters(): void;
  selectTool(name: string | null): void;
  setSettingsOpen(open: boolean): void;
}

export const useConsoleUi = create<ConsoleUiState>()((set) => ({
  filter: 'all',
  filterText: '',
  selectedTool: null,
  settingsOpen: false,
  setFilter: (filter) => set({ filter }),
  setFilterText: (filterText) => set({ filterText }),
  clearFilters: () => set({ filter: 'all', filterText: '' }),
  selectTool: (selectedTool) => set({ selectedTool }),
  setSettingsOpen: (settingsOpen) => set({ settingsOpen }),
}));
