/**
 * The model-facing discovery operations. Each runs in a task, sees only the task's snapshot,
 * shows only what is model-discoverable and granted, and checks authority, staleness and
 * admission before handing anything out.
 */
import type { z } from 'zod';
import type { Authority, CapabilityKind, CapabilityReference } from '../../shared/capability';
import {
  CATALOG_SEARCH_PAGE,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  SEARCH_ANALYZER,
  type CapabilitiesInspectInput,
  type CapabilitiesListInput,
  type CapabilitiesListOutput,
  type CapabilitiesSearchInput,
  type CapabilitiesSearchOutput,
  type CatalogSearchInput,
  type DiscoveryItem,
  type SkillsActivateInput,
  type SkillsActivateOutput,
  type ToolsLoadInput,
  type ToolsLoadOutput,
  type CapabilitiesInspectOutput,
  type CatalogSearchOutput,
} from '../../shared/discovery';
import { toolAnnotations } from '../../shared/mcpTools';
import { CapstanError } from '../../shared/errors';
import type { Catalog, LiveEntry } from '../catalog/catalog';
import type { Cursors } from '../catalog/cursor';
import { canonicalJson } from '../catalog/digest';
import { FILTER_BITS, type Snapshot, type SnapshotEntry } from '../catalog/snapshot';
import { estimateTokens, estimateTokensYielding } from '../runtime/admission';
import type { TaskRuntime } from '../runtime/runtime';
import type { RunningTask } from '../runtime/task';

type Task = RunningTask;

/**
 * The operator's search (`GET /catalog/search`): one page of the ranking over the whole catalog
 * under the console's filters, with the list's length and exact facet counts. One pass over the
 * matches counts them all from the snapshot's facet columns; contracts are read, and hit
 * objects built, only for the page.
 */
export function searchCatalog(snapshot: Snapshot, input: In<typeof CatalogSearchInput>): CatalogSearchOutput {
  const { entries, index, catalogGeneration, facets } = snapshot;
  const result = index.search(input.query);
  const filterBit = input.filter && input.filter !== 'all' ? FILTER_BITS[input.filter] : 0;
  // A kind or provider no entry has: nothing passes it (-1 matches no column value).
  const kindWanted = input.kind ? facets.kinds.indexOf(input.kind) : undefined;
  const providerWanted = input.provider ? facets.providers.indexOf(input.provider) : undefined;
  const offset = input.offset ?? 0;
  const end = offset + (input.limit ?? CATALOG_SEARCH_PAGE);
  const kindCounts = new Uint32Array(facets.kinds.length);
  const providerCounts = new Uint32Array(facets.providers.length);
  const hits: CatalogSearchOutput['hits'] = [];
  let total = 0;
  for (let rank = 0; rank < result.length; rank++) {
    const doc = result.doc(rank);
    if ((facets.filters[doc]! & filterBit) !== filterBit) continue;
    const kindOk = kindWanted === undefined || facets.kind[doc] === kindWanted;
    const providerOk = providerWanted === undefined || facets.provider[doc] === providerWanted;
    if (providerOk) kindCounts[facets.kind[doc]!]! += 1;
    if (kindOk) providerCounts[facets.provider[doc]!]! += 1;
    if (!kindOk || !providerOk) continue;
    if (total >= offset && total < end) {
      const { score, matched } = result.hit(rank);
      hits.push({ id: entries[doc]!.contract.id, score, matched });
    }
    total += 1;
  }
  const kinds = { tool: 0, skill: 0, resource: 0, resourceTemplate: 0, prompt: 0 };
  facets.kinds.forEach((kind, at) => (kinds[kind] = kindCounts[at]!));
  // In order of name already (`facets.providers`).
  const providers = facets.providers.map((provider, at) => ({ provider, count: providerCounts[at]! })).filter(({ count }) => count > 0);
  return {
    analyzer: SEARCH_ANALYZER,
    catalogGeneration,
    matches: result.length,
    total,
    facets: { kinds, providers },
    offset,
    hits,
  };
}

type In<T extends z.ZodType> = z.output<T>;
type Out<T extends z.ZodType> = z.infer<T>;

export function createDiscovery({ catalog, tasks, cursors }: { catalog: Catalog; tasks: TaskRuntime; cursors: Cursors }) {
  /** What a task may see: model-discoverable, granted at least `discover`, and usable right now. */
  const visible = (task: Task, entry: SnapshotEntry) =>
    entry.contract.modelDiscoverable &&
    task.grants.held(entry.contract.id, entry.contract.kind) !== 'none' &&
    catalog.isEnabled(entry.contract.provider) &&
    !catalog.isRevoked(entry.contract.id);

  const item = (task: Task, entry: SnapshotEntry): DiscoveryItem => {
    const { contract } = entry;
    const { kind, provider, name, title, description, tags } = contract;
    const notRunnable = contract.kind === 'tool' && contract.runnable === false ? { runnable: false as const, notRunnableReason: contract.notRunnableReason } : {};
    return { reference: task.snapshot.reference(entry), kind, provider, name, title, description, tags, ...notRunnable };
  };

  function page<T>(task: Task, all: { length: number; slice(start: number, end: number): T[] }, input: { limit?: number | undefined; cursor?: string | undefined }, listing: unknown) {
    const limit = input.limit ?? DEFAULT_PAGE_SIZE;
    if (limit > MAX_PAGE_SIZE) {
      throw new CapstanError('ARGUMENT_INVALID', `limit must be at most ${MAX_PAGE_SIZE}`, { field: 'limit' });
    }
    // The live generation is part of the listing: revocations and disabled providers change
    // what is visible, so a cursor from before such a change is refused, not misread.
    const bound = { listing, task: task.id, snapshot: task.snapshot.catalogGeneration, live: catalog.generation };
    const offset = input.cursor ? cursors.decode(input.cursor, bound) : 0;
    const slice = all.slice(offset, offset + limit);
    const next = offset + limit < all.length ? cursors.encode(bound, offset + limit) : null;
    return { slice, nextCursor: next };
  }

  const filterBy = (kind?: CapabilityKind, provider?: string) => (entry: SnapshotEntry) =>
    (!kind || entry.contract.kind === kind) && (!provider || entry.contract.provider === provider);

  /** Resolves a reference to the live capability, in order: exists, grant, fresh. */
  function present(task: Task, reference: CapabilityReference, needed: Authority): LiveEntry {
    const held = task.snapshot.get(reference.id);
    if (!held || !held.contract.modelDiscoverable) {
      throw new CapstanError('CAPABILITY_NOT_FOUND', `${reference.id} is not discoverable in this task`);
    }
    task.grants.require(reference.id, held.contract.kind, needed);
    return catalog.verify(reference, task.snapshot);
  }

  return {
    capabilitiesList(input: In<typeof CapabilitiesListInput>): Out<typeof CapabilitiesListOutput> {
      const task = tasks.resolve(input);
      const matches = filterBy(input.kind, input.provider);
      const all = task.snapshot.entries.filter((entry) => matches(entry) && visible(task, entry));
      const { slice, nextCursor } = page(task, all, input, { op: 'list', kind: input.kind, provider: input.provider });
      return { taskId: task.id, catalogGeneration: task.snapshot.catalogGeneration, items: slice.map((e) => item(task, e)), nextCursor };
    },

    capabilitiesSearch(input: In<typeof CapabilitiesSearchInput>): Out<typeof CapabilitiesSearchOutput> {
      const task = tasks.resolve(input);
      const { entries, index } = task.snapshot;
      const matches = filterBy(input.kind, input.provider);
      const hits = index.search(input.query, (doc) => matches(entries[doc]!) && visible(task, entries[doc]!));
      const { slice, nextCursor } = page(task, hits, input, {
        op: 'search',
        query: input.query,
        kind: input.kind,
        provider: input.provider,
      });
      return {
        analyzer: SEARCH_ANALYZER,
        taskId: task.id,
        catalogGeneration: task.snapshot.catalogGeneration,
        items: slice.map((hit) => ({ ...item(task, entries[hit.doc]!), score: hit.score, matched: hit.matched })),
        nextCursor,
      };
    },

    capabilitiesInspect(input: In<typeof CapabilitiesInspectInput>): Out<typeof CapabilitiesInspectOutput> {
      const task = tasks.resolve(input);
      const live = present(task, input.reference, 'inspect');
      const annotations = live.contract.kind === 'tool' ? { annotations: toolAnnotations(live.contract) } : {};
      return { taskId: task.id, reference: input.reference, contract: live.contract, held: task.grants.held(live.contract.id, live.contract.kind), ...annotations };
    },

    toolsLoad(input: In<typeof ToolsLoadInput>): Out<typeof ToolsLoadOutput> {
      const task = tasks.resolve(input);
      const live = present(task, input.reference, 'load');
      if (live.contract.kind !== 'tool') {
        throw new CapstanError('ARGUMENT_INVALID', `reference ${live.contract.id} is a skill; activate it with skills_activate`, { field: 'reference' });
      }
      // Nothing is admitted for a tool no call could run: the model learns why now, not at the call.
      if (live.contract.runnable === false) {
        const reason = live.contract.notRunnableReason ?? 'no reason given';
        throw new CapstanError('TOOL_NOT_RUNNABLE', `${live.contract.id} cannot run in Capstan, so it is not loaded: ${reason}`, { reason });
      }
      const { name, description, inputSchema } = live.contract;
      const tokens = estimateTokens(canonicalJson({ name, description, inputSchema }));
      const admitted = task.context.admit(live.contract.id, tokens, 'step');
      return {
        taskId: task.id,
        reference: input.reference,
        inputSchema,
        admission: { tokens: admitted.tokens, inUse: task.context.inUse, ceiling: task.context.ceiling, scope: admitted.scope },
      };
    },

    async skillsActivate(input: In<typeof SkillsActivateInput>): Promise<Out<typeof SkillsActivateOutput>> {
      const task = tasks.resolve(input);
      const reference = input.direct ? directReference(task, input) : input.reference;
      if (!reference) {
        throw new CapstanError('ARGUMENT_MISSING', 'reference', { field: 'reference' });
      }
      // A direct `/name` activation is the operator's choice, so it also reaches skills hidden
      // from the model; it still needs the grant and a fresh reference.
      const live = input.direct ? directEntry(task, reference) : present(task, reference, 'activate');
      if (live.contract.kind !== 'skill' || !live.skill) {
        throw new CapstanError('ARGUMENT_INVALID', `${live.contract.id} is a tool; load it with tools_load`, { field: 'reference' });
      }
      const body = await live.skill.readBody();
      if (body.manifestHash !== live.contract.manifestHash || body.bodyHash !== live.contract.bodyHash) {
        const part = body.manifestHash !== live.contract.manifestHash ? 'manifest' : 'body';
        throw new CapstanError('STALE_CAPABILITY', `${live.contract.id}: its SKILL.md ${part} changed since discovery; discover it again`, {
          part: 'contractHash',
        });
      }
      const tokens = await estimateTokensYielding(body.body);
      const scope = input.direct ? 'task' : 'step';
      if (input.direct && !task.context.fits(tokens) && !task.context.items.some((i) => i.id === live.contract.id)) {
        const message = `/${live.contract.name} was not activated: it needs about ${tokens} tokens and ${task.context.inUse} of the ${task.context.ceiling}-token ceiling are in use`;
        return { status: 'skipped', taskId: task.id, reference, message, need: tokens, inUse: task.context.inUse, ceiling: task.context.ceiling };
      }
      const admitted = task.context.admit(live.contract.id, tokens, scope);
      return {
        status: 'activated',
        taskId: task.id,
        reference,
        body: body.body,
        admission: { tokens: admitted.tokens, inUse: task.context.inUse, ceiling: task.context.ceiling, scope: admitted.scope },
      };
    },
  };

  function directReference(task: Task, input: In<typeof SkillsActivateInput>): CapabilityReference | undefined {
    if (input.reference) return input.reference;
    if (!input.name) return undefined;
    const name = input.name.replace(/^\//, '');
    const entry = task.snapshot.entries.find((e) => e.contract.kind === 'skill' && e.contract.name === name);
    if (!entry) throw new CapstanError('CAPABILITY_NOT_FOUND', `no skill "/${name}" in this task's snapshot`);
    return task.snapshot.reference(entry);
  }

  function directEntry(task: Task, reference: CapabilityReference): LiveEntry {
    const held = task.snapshot.get(reference.id);
    if (held) task.grants.require(reference.id, held.contract.kind, 'activate');
    return catalog.verify(reference, task.snapshot);
  }
}

export type Discovery = ReturnType<typeof createDiscovery>;
