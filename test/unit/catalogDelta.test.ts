/**
 * Catalog events carry what changed: a client that applies each event's delta to the view it
 * holds has exactly the view `GET /catalog` would answer, for every kind of change; a change too
 * large to carry says so; the view's tag follows what a client could see.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../electron/catalog/catalog';
import { CatalogViews, MAX_DELTA_ITEMS, matchesIfNoneMatch } from '../../electron/catalog/catalogView';
import { applyCatalogDelta, catchUp, deltaFit, sameGateway } from '../../shared/catalogDelta';
import type { Diagnostic } from '../../shared/capability';
import type { CatalogView } from '../../shared/discovery';
import { CatalogChanged, type CatalogDelta } from '../../shared/events';
import { mutableProvider, tool } from '../support/catalog';

/** What `GET /catalog` answers (services/api.ts builds the same), with the providers still loading where the catalog names them. */
const viewOf = (catalog: Catalog): CatalogView => ({
  catalogGeneration: catalog.generation,
  loading: catalog.loading(),
  capabilities: catalog.entries(),
  providers: catalog.providers(),
  diagnostics: catalog.diagnostics(),
});

async function setup(tools = 5) {
  const catalog = new Catalog();
  const alpha = mutableProvider('alpha', Array.from({ length: tools }, (_, i) => tool(`tool_${i}`)));
  const beta = mutableProvider('beta', [tool('ping'), tool('lookup')]);
  await catalog.addProvider(alpha.provider);
  await catalog.addProvider(beta.provider);
  const views = new CatalogViews(catalog);
  const events: CatalogChanged[] = [];
  catalog.onChange((change) => events.push(views.event(change)));
  /** The console's side: the view read once, then every event applied to it. */
  let held = viewOf(catalog);
  const follow = () => {
    for (const event of events.splice(0)) {
      // What crosses the wire is what the schema lets through.
      expect(CatalogChanged.parse(JSON.parse(JSON.stringify(event)))).toEqual(event);
      expect(deltaFit(held.catalogGeneration, event)).toBe('apply');
      held = applyCatalogDelta(held, event.catalogGeneration, event.delta!);
    }
    return held;
  };
  return { catalog, alpha, beta, views, events, follow };
}

describe('catalog deltas', () => {
  it('keep a client view equal to GET /catalog through every kind of change', async () => {
    const { catalog, alpha, beta, events, follow } = await setup();

    alpha.state.tools = [tool('tool_1'), tool('tool_2', 'now does something else'), tool('tool_3'), tool('tool_4'), tool('added')];
    await catalog.reload('alpha');
    // One removed, one changed, one added: the unchanged ones take the provider's new binding generation.
    expect(events[0]!.delta).toMatchObject({ from: 2, removed: ['alpha:tool_0'] });
    expect(events[0]!.delta!.upserted.map((entry) => entry.contract.id)).toEqual(['alpha:added', 'alpha:tool_2']);
    expect(follow()).toEqual(viewOf(catalog));

    catalog.setRevoked('beta:ping', true);
    expect(events[0]!.delta!.upserted).toEqual([expect.objectContaining({ revoked: true, contract: expect.objectContaining({ id: 'beta:ping' }) })]);
    expect(follow()).toEqual(viewOf(catalog));
    catalog.setRevoked('beta:ping', false);
    expect(follow()).toEqual(viewOf(catalog));

    catalog.setEnabled('beta', false);
    expect(events[0]!.delta!.removed).toEqual(['beta:lookup', 'beta:ping']);
    expect(follow()).toEqual(viewOf(catalog));
    catalog.setEnabled('beta', true);
    expect(follow()).toEqual(viewOf(catalog));

    // Diagnostics change without a new generation; the delta carries only that provider's.
    beta.state.diagnostics = [{ path: '/x/SKILL.md', line: 2, capability: null, reason: 'broken' }];
    await catalog.reload('beta');
    expect(events[0]).toMatchObject({ reason: 'diagnostics', catalogGeneration: catalog.generation, delta: { from: catalog.generation, upserted: [], removed: [] } });
    expect(events[0]!.delta!.diagnostics).toEqual([{ provider: 'beta', diagnostics: [expect.objectContaining({ reason: 'broken', provider: 'beta' })] }]);
    expect(follow()).toEqual(viewOf(catalog));
    beta.state.diagnostics = [];
    await catalog.reload('beta');
    expect(follow()).toEqual(viewOf(catalog));

    await catalog.removeProvider('alpha');
    expect(follow()).toEqual(viewOf(catalog));
  });

  it('carry one capability for a one-capability change in a large provider, and nothing past the cap', async () => {
    const { catalog, alpha, events, follow } = await setup(MAX_DELTA_ITEMS + 50);
    alpha.state.tools = alpha.state.tools.map((t) => (t.name === 'tool_7' ? tool('tool_7', 'changed') : t));
    await catalog.reload('alpha');
    const [event] = events;
    expect(event!.delta!.upserted.map((entry) => entry.contract.id)).toEqual(['alpha:tool_7']);
    // Far smaller than the view it updates.
    expect(JSON.stringify(event).length * 50).toBeLessThan(JSON.stringify(viewOf(catalog)).length);
    expect(follow()).toEqual(viewOf(catalog));

    // Switching the whole provider off removes more capabilities than a delta carries.
    catalog.setEnabled('alpha', false);
    expect(events[0]!.delta).toBeNull();
  });

  it('follow any sequence of changes (generated)', async () => {
    const change = fc.oneof(
      fc.record({ op: fc.constant('set' as const), tools: fc.uniqueArray(fc.record({ name: fc.constantFrom('a', 'b', 'c', 'd', 'e'), v: fc.nat(2) }), { selector: (t) => t.name }) }),
      fc.record({ op: fc.constant('revoke' as const), id: fc.constantFrom('alpha:a', 'alpha:b', 'beta:ping'), revoked: fc.boolean() }),
      fc.record({ op: fc.constant('enable' as const), provider: fc.constantFrom('alpha', 'beta'), enabled: fc.boolean() }),
      fc.record({ op: fc.constant('diagnose' as const), reasons: fc.array(fc.constantFrom('x', 'y'), { maxLength: 2 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(change, { maxLength: 12 }), async (changes) => {
        const { catalog, alpha, follow } = await setup(0);
        for (const step of changes) {
          if (step.op === 'set') {
            alpha.state.tools = step.tools.map((t) => tool(t.name, `version ${t.v}`));
            await catalog.reload('alpha');
          } else if (step.op === 'revoke') catalog.setRevoked(step.id, step.revoked);
          else if (step.op === 'enable') catalog.setEnabled(step.provider, step.enabled);
          else {
            alpha.state.diagnostics = step.reasons.map((reason) => ({ path: null, line: null, capability: null, reason }));
            await catalog.reload('alpha');
          }
          expect(follow()).toEqual(viewOf(catalog));
        }
      }),
      { numRuns: 30 },
    );
  });

  it('tell a client holding another generation to read the view again, or that it already has the change', () => {
    const event = { catalogGeneration: 5, delta: { from: 4 } as CatalogChanged['delta'] };
    expect(deltaFit(4, event)).toBe('apply');
    expect(deltaFit(3, event)).toBe('reread');
    expect(deltaFit(5, event)).toBe('skip');
    expect(deltaFit(6, event)).toBe('skip');
    expect(deltaFit(undefined, event)).toBe('reread');
    expect(deltaFit(4, { catalogGeneration: 5, delta: null })).toBe('reread');
    // A same-generation change (status, diagnostics) applies to the view of that generation.
    expect(deltaFit(5, { catalogGeneration: 5, delta: { from: 5 } as CatalogChanged['delta'] })).toBe('apply');
  });
});

describe('a view read while events arrive', () => {
  /** What a console holds after a read: the view with the tag `GET /catalog` sent. */
  const read = (catalog: Catalog, views: CatalogViews) => ({ ...viewOf(catalog), tag: views.tag() });

  it('is brought up to the events heard before its answer arrived: those it includes skipped, later ones applied', async () => {
    // A provider (an MCP server) lists its tools just after the gateway answered the console's first read.
    const { catalog, beta, views, events } = await setup();
    catalog.setRevoked('alpha:tool_1', true);
    const answer = read(catalog, views);
    beta.state.tools = [tool('ping'), tool('lookup'), tool('echo'), tool('get-sum')];
    await catalog.reload('beta');
    catalog.setRevoked('beta:echo', true);

    // The revocation's event came before the answer, the new tools' after: all were heard before the answer was held.
    expect(events).toHaveLength(3);
    const { view, reread } = catchUp(answer, events);
    expect(reread).toBe(false);
    expect(view).toEqual(read(catalog, views));
    expect(view.capabilities.map((entry) => entry.contract.id)).toEqual(expect.arrayContaining(['beta:echo', 'beta:get-sum']));
  });

  it('asks for another read when a heard change is too large to carry, or comes from another gateway', async () => {
    const { catalog, alpha, views, events } = await setup();
    const answer = read(catalog, views);
    alpha.state.tools = Array.from({ length: MAX_DELTA_ITEMS + 1 }, (_, i) => tool(`many_${i}`));
    await catalog.reload('alpha');
    expect(events[0]!.delta).toBeNull();
    expect(catchUp(answer, events)).toEqual({ view: answer, reread: true });

    const other = await setup();
    other.catalog.setRevoked('beta:ping', true);
    expect(catchUp(answer, other.events).reread).toBe(true);
    // Heard before a read that includes them, the same events change nothing.
    catalog.setRevoked('beta:ping', true);
    const current = read(catalog, views);
    expect(catchUp(current, events)).toEqual({ view: current, reread: false });
  });
});

describe('the catalog view tag', () => {
  it('changes with the generation and with diagnostics, and is the one the last delta carried', async () => {
    const { catalog, beta, views, events } = await setup();
    const first = views.tag();
    expect(views.tag()).toBe(first);
    catalog.setRevoked('beta:ping', true);
    const revoked = views.tag();
    expect(revoked).not.toBe(first);
    expect(events.at(-1)!.delta!.tag).toBe(revoked);
    beta.state.diagnostics = [{ path: null, line: null, capability: null, reason: 'broken' }];
    await catalog.reload('beta');
    expect(views.tag()).not.toBe(revoked);
    expect(events.at(-1)!.delta!.tag).toBe(views.tag());
  });

  it('is never shared by two gateways at the same generation, and tells a client which gateway made it', async () => {
    const a = await setup();
    const b = await setup();
    expect(a.catalog.generation).toBe(b.catalog.generation);
    expect(a.views.tag()).not.toBe(b.views.tag());
    expect(sameGateway(a.views.tag(), b.views.tag())).toBe(false);
    const before = a.views.tag();
    a.catalog.setRevoked('beta:ping', true);
    expect(sameGateway(before, a.views.tag())).toBe(true);
    expect(sameGateway(null, before)).toBeUndefined();
  });

  it('matches If-None-Match as HTTP compares tags', () => {
    const tag = '"abc.3.xyz"';
    expect(matchesIfNoneMatch(tag, tag)).toBe(true);
    expect(matchesIfNoneMatch(`"other", ${tag}`, tag)).toBe(true);
    expect(matchesIfNoneMatch(`W/${tag}`, tag)).toBe(true);
    expect(matchesIfNoneMatch('*', tag)).toBe(true);
    expect(matchesIfNoneMatch('"abc.3"', tag)).toBe(false);
    expect(matchesIfNoneMatch(undefined, tag)).toBe(false);
  });
});

describe('the gateway\'s own diagnostics', () => {
  it('are kept, replaced and cleared by a delta, first in the list, though the gateway is no provider', () => {
    const gateway = (reason: string) => ({ provider: 'gateway', path: null, line: null, capability: null, reason });
    const base = { catalogGeneration: 1, capabilities: [], providers: [], diagnostics: [] } as unknown as CatalogView;
    const delta = (diagnostics: { provider: string; diagnostics: Diagnostic[] }[]) => ({ upserted: [], removed: [], providers: [], diagnostics, tag: 't' }) as unknown as CatalogDelta;
    const shown = applyCatalogDelta(base, 1, delta([{ provider: 'gateway', diagnostics: [gateway('config.json is not valid JSON')] }]));
    expect(shown.diagnostics.map((d) => d.reason)).toEqual(['config.json is not valid JSON']);
    expect(applyCatalogDelta(shown, 2, delta([])).diagnostics).toHaveLength(1);
    expect(applyCatalogDelta(shown, 2, delta([{ provider: 'gateway', diagnostics: [] }])).diagnostics).toEqual([]);
  });
});
