import { describe, expect, it } from 'vitest';
import { Catalog } from '../../electron/catalog/catalog';
import type { CapabilityReference } from '../../shared/capability';
import { mutableProvider, tool } from '../support/catalog';

async function setup() {
  const catalog = new Catalog();
  const remote = mutableProvider('remote', [tool('lookup'), tool('ping')]);
  await catalog.addProvider(remote.provider);
  const snapshot = catalog.snapshot();
  const reference = snapshot.reference(snapshot.get('remote:lookup')!);
  return { catalog, remote, snapshot, reference };
}

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return { code: (error as { code: string }).code, part: (error as { details?: { part?: string } }).details?.part };
  }
  return { code: 'NONE' };
};

describe('references', () => {
  it('resolve to the live capability while nothing changed', async () => {
    const { catalog, snapshot, reference } = await setup();
    expect(reference).toEqual({ id: 'remote:lookup', catalogGeneration: 1, contractHash: expect.stringMatching(/^[0-9a-f]{64}$/), bindingGeneration: 1 });
    expect(catalog.verify(reference, snapshot).contract.name).toBe('lookup');
  });

  it('are stale when the contract changed', async () => {
    const { catalog, remote, snapshot, reference } = await setup();
    remote.state.tools = [tool('lookup', 'now does something else'), tool('ping')];
    await catalog.reload('remote');
    expect(code(() => catalog.verify(reference, snapshot))).toEqual({ code: 'STALE_CAPABILITY', part: 'bindingGeneration' });
  });

  it('are stale when the binding changed, even for an unchanged capability', async () => {
    const { catalog, remote, snapshot, reference } = await setup();
    remote.state.tools = [tool('lookup'), tool('ping'), tool('added')];
    await catalog.reload('remote');
    expect(code(() => catalog.verify(reference, snapshot))).toEqual({ code: 'STALE_CAPABILITY', part: 'bindingGeneration' });
  });

  it('are stale when the provider no longer offers the capability', async () => {
    const { catalog, remote, reference } = await setup();
    remote.state.tools = [tool('ping')];
    await catalog.reload('remote');
    // A task that started after the change holds a reference with the new binding generation.
    const fresh = catalog.snapshot();
    const forged = { ...reference, catalogGeneration: fresh.catalogGeneration, bindingGeneration: 2 };
    expect(code(() => catalog.verify(forged, fresh))).toEqual({ code: 'CAPABILITY_NOT_FOUND', part: undefined });
  });

  it('are stale when presented with another contract hash or generation than the snapshot issued', async () => {
    const { catalog, snapshot, reference } = await setup();
    const tampered: CapabilityReference[] = [
      { ...reference, contractHash: 'f'.repeat(64) },
      { ...reference, bindingGeneration: 7 },
      { ...reference, catalogGeneration: 0 },
    ];
    expect(tampered.map((r) => code(() => catalog.verify(r, snapshot)))).toEqual([
      { code: 'STALE_CAPABILITY', part: 'contractHash' },
      { code: 'STALE_CAPABILITY', part: 'bindingGeneration' },
      { code: 'STALE_CAPABILITY', part: 'catalogGeneration' },
    ]);
  });

  it('are refused when the provider is disabled or the capability revoked, whatever the snapshot', async () => {
    const { catalog, snapshot, reference } = await setup();
    catalog.setEnabled('remote', false);
    expect(code(() => catalog.verify(reference, snapshot)).code).toBe('PROVIDER_DISABLED');
    expect(code(() => catalog.resolveTool('lookup')).code).toBe('PROVIDER_DISABLED');
    catalog.setEnabled('remote', true);
    catalog.setRevoked('remote:lookup', true);
    expect(code(() => catalog.verify(reference, snapshot)).code).toBe('CAPABILITY_REVOKED');
    catalog.setRevoked('remote:lookup', false);
    // Enabling, disabling and revoking grow the catalog generation but not the binding's,
    // so the task's reference works again once they are undone.
    expect(catalog.generation).toBe(5);
    expect(catalog.verify(reference, snapshot).contract.id).toBe('remote:lookup');
  });
});

describe('snapshots and generations', () => {
  it('stay as they were taken while the catalog moves on', async () => {
    const { catalog, remote, snapshot } = await setup();
    remote.state.tools = [tool('ping')];
    await catalog.reload('remote');
    expect(snapshot.entries.map((e) => e.contract.id)).toEqual(['remote:lookup', 'remote:ping']);
    expect(catalog.snapshot().entries.map((e) => e.contract.id)).toEqual(['remote:ping']);
    expect(Object.isFrozen(snapshot.entries)).toBe(true);
  });

  it('grow only when something changed', async () => {
    const { catalog, remote } = await setup();
    const generation = catalog.generation;
    await catalog.reload('remote');
    expect(catalog.generation).toBe(generation);
    expect(catalog.snapshot()).toBe(catalog.snapshot());
    remote.state.tools = [tool('ping')];
    await catalog.reload('remote');
    expect(catalog.generation).toBe(generation + 1);
    expect(catalog.providers()).toEqual([{ name: 'remote', kind: 'mcp', enabled: true, bindingGeneration: 2, tools: 1, skills: 0, diagnostics: 0 }]);
  });

  it('turn an invalid tool definition into a diagnostic and keep the rest', async () => {
    const catalog = new Catalog();
    const bad = { ...tool('bad name'), name: 'bad name' };
    await catalog.addProvider(mutableProvider('remote', [tool('ok'), bad, tool('ok')]).provider);
    expect(catalog.entries().map((e) => e.contract.id)).toEqual(['remote:ok']);
    expect(catalog.diagnostics().map((d) => d.reason)).toEqual(['tool "bad name" is invalid: name must be 1-128 of [A-Za-z0-9_.-]', 'duplicate name "ok"']);
  });
});

describe('a tool named by its bare name', () => {
  it('is the builtin one when a provider names a tool like a builtin; others sharing a name are listed, to be called by id', async () => {
    const catalog = new Catalog();
    await catalog.addProvider({ name: 'builtin', kind: 'builtin', load: () => ({ tools: [tool('time_now')], skills: [], diagnostics: [] }) });
    await catalog.addProvider(mutableProvider('remote', [tool('time_now'), tool('lookup')]).provider);
    await catalog.addProvider(mutableProvider('other', [tool('lookup')]).provider);
    expect(catalog.resolveTool('time_now').contract.id).toBe('builtin:time_now');
    expect(catalog.resolveTool('remote:time_now').contract.id).toBe('remote:time_now');
    expect(code(() => catalog.resolveTool('lookup'))).toEqual({ code: 'TOOL_NOT_FOUND', part: undefined });
    expect(() => catalog.resolveTool('lookup')).toThrow('"lookup" names several tools (remote:lookup, other:lookup); call it by id');
  });
});

describe('a provider with many tools', () => {
  const many = (count: number, changed = -1) =>
    Array.from({ length: count }, (_, index) => ({
      ...tool(`t${index}`, index === changed ? 'changed' : `does t${index}`),
      inputSchema: { type: 'object', properties: { q: { type: 'string', maxLength: 50 } }, additionalProperties: false },
    }));

  it('recompiles only the tools that changed when it is reloaded', async () => {
    const catalog = new Catalog();
    const big = mutableProvider('big', many(500));
    await catalog.addProvider(big.provider);
    // A compiled schema is a function of its own: the same one means it was not compiled again.
    const validator = (id: string) => catalog.live(id)!.tool!.validateArguments;
    const before = [validator('big:t1'), validator('big:t7')];
    big.state.tools = many(500, 7);
    await catalog.reload('big');
    expect(validator('big:t1')).toBe(before[0]);
    expect(validator('big:t7')).not.toBe(before[1]);
    expect(catalog.live('big:t7')!.contract.description).toBe('changed');
  });

  it('lets the event loop run while it compiles a long list', async () => {
    const catalog = new Catalog();
    let turns = 0;
    let loading = true;
    const count = () => {
      turns += 1;
      if (loading) setImmediate(count);
    };
    setImmediate(count);
    await catalog.addProvider(mutableProvider('big', many(3000)).provider);
    loading = false;
    expect(turns).toBeGreaterThan(5);
  });
});
