/**
 * The registry as the console shows it: every capability of the enabled providers (tools and
 * skills), each with its state under the operator's whitelist, plus providers and diagnostics.
 */
import { useMemo } from 'react';
import type { CatalogEntry, SkillContract, ToolContract } from '../../../shared/capability';
import { useCatalog, useSettings } from '../../api/hooks';
import { providerUnavailability, type Unavailability } from './availability';
import { capabilityState, type CapabilityState } from './capabilityState';

export interface RegistryEntry extends CatalogEntry {
  id: string;
  state: CapabilityState;
  /** Why its provider cannot be reached now; null when it can. */
  unavailable: Unavailability | null;
}

export type ToolEntry = RegistryEntry & { contract: ToolContract };
export type SkillEntry = RegistryEntry & { contract: SkillContract };

export const isToolEntry = (entry: RegistryEntry): entry is ToolEntry => entry.contract.kind === 'tool';

export function useRegistry() {
  const catalog = useCatalog();
  const settings = useSettings();
  const whitelist = settings.data?.whitelist;

  const entries = useMemo<RegistryEntry[] | undefined>(() => {
    if (!catalog.data || !whitelist) return undefined;
    const unreachable = new Map(catalog.data.providers.map((provider) => [provider.name, providerUnavailability(provider)]));
    return catalog.data.capabilities.map((entry) => {
      const unavailable = unreachable.get(entry.contract.provider) ?? null;
      return { ...entry, id: entry.contract.id, unavailable, state: capabilityState(entry, whitelist, unavailable !== null) };
    });
  }, [catalog.data, whitelist]);
  const byId = useMemo(() => new Map(entries?.map((entry) => [entry.id, entry])), [entries]);

  return {
    entries,
    byId,
    catalogGeneration: catalog.data?.catalogGeneration,
    providers: catalog.data?.providers ?? [],
    diagnostics: catalog.data?.diagnostics ?? [],
    whitelist,
    /** The first failure, if any: the console needs both queries to show a capability's state. */
    error: catalog.error ?? settings.error,
    isPending: catalog.isPending || settings.isPending,
    isFetching: catalog.isFetching || settings.isFetching,
    retry: () => Promise.all([catalog.refetch(), settings.refetch()]),
  };
}

export type Registry = ReturnType<typeof useRegistry>;
