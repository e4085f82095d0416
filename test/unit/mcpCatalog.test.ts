/** The catalog's side of connected providers (MCP servers): status, availability, new bindings, switching, removal. */
import { describe, expect, it } from 'vitest';
import type { ProviderStatus } from '../../shared/capability';
import { Catalog, type CatalogChange } from '../../electron/catalog/catalog';
import type { Provider, ProviderChange } from '../../electron/catalog/provider';
import { testTool } from '../support/runtime';

/** A provider that connects to something, driven by hand. */
class Connected implements Provider {
  readonly name = 'srv';
  readonly kind = 'mcp' as const;
  state: ProviderStatus['state'] = 'connecting';
  connection = 0;
  active: boolean[] = [];
  closed = false;
  notify: ((change?: ProviderChange) => void) | undefined;
  load() {
    return { tools: [testTool({ name: 'echo', description: 'echoes', run: () => 'x' })], skills: [], diagnostics: [], connection: this.connection };
  }
  watch(onChange: (change?: ProviderChange) => void) {
    this.notify = onChange;
    return () => (this.notify = undefined);
  }
  status(): ProviderStatus {
    return { state: this.state, reason: this.state === 'failed' ? 'the server process exited' : null, since: '', retryAt: null, stderr: [], protocolVersion: null };
  }
  setActive(active: boolean) {
    this.active.push(active);
  }
  async close() {
    this.closed = true;
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('a connected provider in the catalog', () => {
  it('keeps its tools listed while it is not ready, and refuses calls with PROVIDER_UNAVAILABLE', async () => {
    const catalog = new Catalog();
    const provider = new Connected();
    await catalog.addProvider(provider);
    expect(provider.active).toEqual([true]);
    expect(catalog.entries().map((entry) => entry.contract.id)).toEqual(['srv:echo']);
    expect(() => catalog.resolveTool('srv:echo')).toThrow(expect.objectContaining({ code: 'PROVIDER_UNAVAILABLE' }));
    provider.state = 'ready';
    expect(catalog.resolveTool('srv:echo').contract.id).toBe('srv:echo');
    provider.state = 'failed';
    expect(() => catalog.resolveTool('srv:echo')).toThrow(/failed \(the server process exited\)/);
    expect(catalog.providers()[0]?.status).toMatchObject({ state: 'failed' });
  });

  it('tells clients of a status change without a new generation, and makes each new connection a new binding', async () => {
    const catalog = new Catalog();
    const provider = new Connected();
    await catalog.addProvider(provider);
    const changes: CatalogChange[] = [];
    catalog.onChange((change) => changes.push(change));
    const generation = catalog.generation;
    const binding = catalog.live('srv:echo')!.bindingGeneration;

    provider.notify?.('status');
    expect(changes).toEqual([{ catalogGeneration: generation, provider: 'srv', reason: 'status' }]);

    // The same tools over a new connection: a new binding all the same.
    provider.connection += 1;
    provider.notify?.('contents');
    await settle();
    expect(catalog.live('srv:echo')!.bindingGeneration).toBe(binding + 1);
    expect(catalog.generation).toBe(generation + 1);
    // Reloaded without a new connection or a change: nothing moves.
    provider.notify?.();
    await settle();
    expect(catalog.generation).toBe(generation + 1);
  });

  it('switches it off and on, and ends it when removed', async () => {
    const catalog = new Catalog();
    const provider = new Connected();
    await catalog.addProvider(provider, { enabled: false });
    catalog.setEnabled('srv', true);
    catalog.setEnabled('srv', false);
    expect(provider.active).toEqual([false, true, false]);
    await catalog.removeProvider('srv');
    expect(provider.closed).toBe(true);
    expect(catalog.providers()).toEqual([]);
    expect(catalog.live('srv:echo')).toBeUndefined();
  });
});
