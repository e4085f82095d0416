/**
 * How a client applies a catalog event's delta (shared/events.ts) to the view it holds, so that
 * the result is the view `GET /catalog` would answer at the event's generation; the gateway's
 * side is electron/catalog/catalogView.ts.
 */
import type { CatalogEntry, Diagnostic } from './capability';
import type { CatalogView } from './discovery';
import type { CatalogChanged, CatalogDelta } from './events';

/** Where the gateway's own diagnostics are filed (electron/catalog/catalog.ts GATEWAY_DIAGNOSTICS). */
const GATEWAY = 'gateway';

/**
 * A catalog view's entity tag: the gateway process that made it, the generation, and a digest of
 * the providers and diagnostics. Clients treat it as opaque except to tell whether two tags come
 * from the same gateway process: a restarted gateway counts its generations from the start again.
 */
export const catalogTag = (instance: string, generation: number, digest: string) => `"${instance}.${generation}.${digest}"`;

/** Whether two tags come from the same gateway process (unknown when either is missing). */
export function sameGateway(a: string | null, b: string | null): boolean | undefined {
  if (!a || !b) return undefined;
  const instance = (tag: string) => tag.replace(/^(W\/)?"/, '').split('.')[0];
  return instance(a) === instance(b);
}

/** What a client does with a catalog event, given the generation of the view it holds. */
export type DeltaFit = 'apply' | 'skip' | 'reread';

/**
 * `apply` when the delta starts from the held view; `skip` when the held view already includes
 * it (an older event, or one whose change the client read some other way); `reread` when the
 * client missed a change, or the event carries no delta.
 */
export function deltaFit(held: number | undefined, event: Pick<CatalogChanged, 'catalogGeneration' | 'delta'>): DeltaFit {
  if (held === undefined) return 'reread';
  if (event.catalogGeneration < held) return 'skip';
  if (!event.delta) return 'reread';
  if (event.delta.from === held) return 'apply';
  if (event.catalogGeneration === held && event.delta.from < held) return 'skip';
  return 'reread';
}

/** A view with the entity tag it was read or built with (null: none known). */
type TaggedView = CatalogView & { tag: string | null };

/** What a client does with a catalog event given the view it holds, the gateway that made each included. */
export function eventFit(held: TaggedView | undefined, event: Pick<CatalogChanged, 'catalogGeneration' | 'delta'>): DeltaFit {
  // An event from a restarted gateway does not follow on from a view of the one before, whatever the generations say.
  if (held && event.delta && sameGateway(held.tag, event.delta.tag) === false) return 'reread';
  return deltaFit(held?.catalogGeneration, event);
}

/**
 * A view just read, brought up to the events heard while the read was in flight. The gateway can
 * change the catalog after it answers and before the client has the answer; the events of those
 * changes reach a client that holds no view yet, which can neither apply them nor have them read
 * (a read already in flight answers for them, with the view from before). Replayed in order on
 * the answer, each is skipped if the answer includes it and applied if it follows on; `reread`
 * when one can be neither (its delta too large, or a change missed), so the client reads again.
 */
export function catchUp<View extends TaggedView>(view: View, heard: readonly CatalogChanged[]): { view: View; reread: boolean } {
  let caught = view;
  for (const event of heard) {
    const fit = eventFit(caught, event);
    if (fit === 'reread') return { view: caught, reread: true };
    if (fit === 'apply' && event.delta) caught = { ...applyCatalogDelta(caught, event.catalogGeneration, event.delta), tag: event.delta.tag };
  }
  return { view: caught, reread: false };
}

const byId = (a: CatalogEntry, b: CatalogEntry) => (a.contract.id < b.contract.id ? -1 : a.contract.id > b.contract.id ? 1 : 0);

/** The held view with the delta applied: capabilities stay in canonical id order, diagnostics in provider order. */
export function applyCatalogDelta<View extends CatalogView>(view: View, catalogGeneration: number, delta: CatalogDelta): View {
  const upserts = new Map(delta.upserted.map((entry) => [entry.contract.id, entry]));
  const removed = new Set(delta.removed);
  const bindingGeneration = new Map(delta.providers.map((provider) => [provider.name, provider.bindingGeneration]));
  const kept: CatalogEntry[] = [];
  for (const entry of view.capabilities) {
    const id = entry.contract.id;
    if (removed.has(id)) continue;
    const upsert = upserts.get(id);
    if (upsert) {
      kept.push(upsert);
      upserts.delete(id);
      continue;
    }
    // An entry the delta does not list carries its provider's binding generation.
    const generation = bindingGeneration.get(entry.contract.provider);
    kept.push(generation === undefined || generation === entry.bindingGeneration ? entry : { ...entry, bindingGeneration: generation });
  }
  const capabilities = upserts.size === 0 ? kept : mergeSorted(kept, [...upserts.values()].sort(byId));

  const held = new Map<string, Diagnostic[]>();
  for (const diagnostic of view.diagnostics) {
    const list = held.get(diagnostic.provider) ?? [];
    list.push(diagnostic);
    held.set(diagnostic.provider, list);
  }
  for (const { provider, diagnostics } of delta.diagnostics) held.set(provider, diagnostics);
  // The gateway's own findings (provider `gateway`, config.json's among them) come first, as GET /catalog lists them; it is no provider, so not in delta.providers.
  const diagnostics = [...(held.get(GATEWAY) ?? []), ...delta.providers.flatMap(({ name }) => (name === GATEWAY ? [] : (held.get(name) ?? [])))];

  return { ...view, catalogGeneration, capabilities, providers: delta.providers, diagnostics, ...(delta.loading ? { loading: delta.loading } : {}) };
}

function mergeSorted(a: readonly CatalogEntry[], b: readonly CatalogEntry[]): CatalogEntry[] {
  const merged: CatalogEntry[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) merged.push(byId(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!);
  while (i < a.length) merged.push(a[i++]!);
  while (j < b.length) merged.push(b[j++]!);
  return merged;
}
