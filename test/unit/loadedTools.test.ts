/**
 * The tools each MCP session has loaded (electron/transports/mcp/loadedTools.ts): kept for the
 * sessions the gateway has open and for as long as each is, so one agent's churn of sessions
 * never pushes another's tools out, and a session that ended leaves nothing behind.
 */
import { describe, expect, it } from 'vitest';
import type { CapabilityReference, ToolContract } from '../../shared/capability';
import { LoadedTools } from '../../electron/transports/mcp/loadedTools';

const contract = (name: string) =>
  ({
    id: `builtin:${name}`,
    name,
    provider: 'builtin',
    kind: 'tool',
    title: name,
    description: `the ${name} tool`,
    riskLevel: 'low',
    needConfirm: false,
    mutating: false,
    inputSchema: { type: 'object', properties: {} },
  }) as unknown as ToolContract;

const reference = (name: string): CapabilityReference => ({ id: `builtin:${name}`, catalogGeneration: 1, contractHash: '0'.repeat(64), bindingGeneration: 0 });

describe('loaded tools', () => {
  it("keeps a session's tools however many other sessions come and go", () => {
    const loaded = new LoadedTools();
    loaded.open('agent:victim/mcp-a');
    expect(loaded.add('agent:victim/mcp-a', 'task-1', contract('time_now'), reference('time_now'))).toBe(true);
    // Another agent opens, loads in and ends a thousand sessions.
    for (let index = 0; index < 1000; index += 1) {
      const session = `agent:churner/mcp-${index}`;
      loaded.open(session);
      loaded.add(session, `task-c${index}`, contract('time_now'), reference('time_now'));
      loaded.close(session);
    }
    expect(loaded.list('agent:victim/mcp-a').map((tool) => tool.name)).toEqual(['time_now']);
    expect(loaded.reference('agent:victim/mcp-a', 'time_now')).toEqual(reference('time_now'));
  });

  it('lists nothing for a session once it ended, nor for one never opened, even if a load finishes afterwards', () => {
    const loaded = new LoadedTools();
    loaded.open('agent:a/mcp-1');
    loaded.add('agent:a/mcp-1', 'task-1', contract('time_now'), reference('time_now'));
    loaded.close('agent:a/mcp-1');
    expect(loaded.list('agent:a/mcp-1')).toEqual([]);
    // A tools_load that was in flight as the session ended, and one for a session never issued.
    expect(loaded.add('agent:a/mcp-1', 'task-1', contract('note_add'), reference('note_add'))).toBe(false);
    expect(loaded.add('agent:a/mcp-2', 'task-2', contract('note_add'), reference('note_add'))).toBe(false);
    expect(loaded.list('agent:a/mcp-1')).toEqual([]);
    expect(loaded.list('agent:a/mcp-2')).toEqual([]);
  });

  it("forgets what another task loaded once the session's operations report a new one", () => {
    const loaded = new LoadedTools();
    loaded.open('agent:a/mcp-1');
    loaded.add('agent:a/mcp-1', 'task-1', contract('time_now'), reference('time_now'));
    expect(loaded.add('agent:a/mcp-1', 'task-1', contract('time_now'), reference('time_now'))).toBe(false);
    expect(loaded.observe('agent:a/mcp-1', 'task-2')).toBe(true);
    expect(loaded.list('agent:a/mcp-1')).toEqual([]);
  });
});
