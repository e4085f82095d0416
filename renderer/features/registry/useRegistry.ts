/**
 * The registry as the console shows it: every capability of the enabled providers (tools and
 * skills), each with its state under the operator's whitelist, plus providers and diagnostics.
 */
import { useEffect, useMemo, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { CatalogEntry, SkillContract, ToolContract } from '../../../shared/capability';
import type { CatalogView } from '../../../shared/discovery';
import type { PinHold } from '../../../shared/pins';
import { readWholeCatalog, useCatalog, usePins, useSettings, useTransport } from '../../api/hooks';
import { providerUnavailability, type Unavailability } from './availability';
import { capabilityState, type CapabilityState } from './capabilityState';

export interface RegistryEntry extends CatalogEntry {
  id: string;
  state: CapabilityState;
  /** Why its provider cannot be reached now; null when it can. */
  unavailable: Unavailability | null;
  /** Why it is held for review (pinned contracts); null when it is not. */
  hold: PinHold | null;
}

export type ToolEntry = RegistryEntry & { contract: ToolContract };
export type SkillEntry = RegistryEntry & { contract: SkillContract };

export const isToolEntry = (entry: RegistryEntry): entry is ToolEntry => entry.contract.kind === 'tool';

export function useRegistry() {
  const catalog = useCatalog();
  const settings = useSettings();
  // Held tools are in the catalog like the others; GET /pins says which and why. A gateway without it holds nothing.
  const pins = usePins();
  const whitelist = settings.data?.whitelist;
  const held = pins.data?.held;

  const entries = useMemo<RegistryEntry[] | undefined>(() => {
    if (!catalog.data || !whitelist) return undefined;
    const unreachable = new Map(catalog.data.providers.map((provider) => [provider.name, providerUnavailability(provider)]));
    const holds = new Map(held?.map((hold) => [hold.id, hold]));
    return catalog.data.capabilities.map((entry) => {
      const unavailable = unreachable.get(entry.contract.provider) ?? null;
      const hold = holds.get(entry.contract.id) ?? null;
      return { ...entry, id: entry.contract.id, unavailable, hold, state: capabilityState(entry, whitelist, unavailable !== null, hold !== null) };
    });
  }, [catalog.data, whitelist, held]);
  const byId = useMemo(() => new Map(entries?.map((entry) => [entry.id, entry])), [entries]);
  useHeldListed(catalog.data, held);

  return {
    entries,
    byId,
    catalogGeneration: catalog.data?.catalogGeneration,
    providers: catalog.data?.providers ?? [],
    diagnostics: catalog.data?.diagnostics ?? [],
    /** The held tools, for the header's count and the review; empty until read. */
    held: held ?? [],
    whitelist,
    /** The first failure, if any: the console needs both queries to show a capability's state. */
    error: catalog.error ?? settings.error,
    isPending: catalog.isPending || settings.isPending,
    isFetching: catalog.isFetching || settings.isFetching,
    retry: () => Promise.all([catalog.refetch(), settings.refetch()]),
  };
}

export type Registry = ReturnType<typeof useRegistry>;

/**
 * A held tool missing from the catalog view the console holds (a catalog event's delta leaves
 * held tools out; GET /catalog lists them) has the view read again whole: once per generation
 * and set of missing tools, so a tool the gateway does not list is not asked for in a loop.
 */
function useHeldListed(catalog: CatalogView | undefined, held: readonly PinHold[] | undefined): void {
  const transport = useTransport();
  const client = useQueryClient();
  const asked = useRef<string | null>(null);
  useEffect(() => {
    if (!catalog || !held?.length) return;
    const listed = new Set(catalog.capabilities.map((entry) => entry.contract.id));
    const missing = held.filter((hold) => !listed.has(hold.id)).map((hold) => hold.id);
    if (missing.length === 0) return;
    const key = `${catalog.catalogGeneration} ${missing.join(' ')}`;
    if (asked.current === key) return;
    asked.current = key;
    void readWholeCatalog(client, transport).catch(() => undefined);
  }, [catalog, held, client, transport]);
}
