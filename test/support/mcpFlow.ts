/**
 * The seed's discovery flow as an MCP client walks it, whatever the transport: the six tools and
 * their annotations, list pages joined by cursors, search, inspect, load, call, a skill activated,
 * and the refusals (not loaded, stale). Returns what a transport-specific test checks further.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { McpTestClient } from './mcpClient';
import { skill } from './skills';

export const CAPSTAN_TOOL_NAMES = ['capabilities_list', 'capabilities_search', 'capabilities_inspect', 'tools_load', 'skills_activate', 'capability_call'];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A model-discoverable skill to activate and then change under its reference. */
export function writeFlowSkill(skillsDir: string, name: string): string {
  const path = join(skillsDir, name, 'SKILL.md');
  writeFileSync(path, skill(`name: ${name}\ndescription: Steps for the ${name} drill\ntags: [drill]`, `# ${name}\nStep one.\n`));
  return path;
}

export async function walkDiscovery(mcp: McpTestClient, skillName: string, skillPath: string): Promise<{ taskId: string; reference: Json }> {
  const { tools } = await mcp.client.listTools();
  expect(tools.map((tool) => tool.name).slice(0, 6)).toEqual(CAPSTAN_TOOL_NAMES);
  for (const tool of tools.slice(0, 5)) expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
  expect(tools[5]!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
  expect(tools[1]!.inputSchema).toMatchObject({ type: 'object', required: ['query'], additionalProperties: false });

  // Pages of 3, joined by cursors, are the one-page listing, each capability once.
  const all = await mcp.call('capabilities_list', { limit: 100 });
  expect(all.isError).toBeFalsy();
  const everything = (all.structuredContent!.items as Json[]).map((item) => item.reference.id);
  expect(everything).toEqual(expect.arrayContaining(['builtin:time_now', `skills:${skillName}`]));
  const paged: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await mcp.call('capabilities_list', { limit: 3, ...(cursor ? { cursor } : {}) });
    expect(page.structuredContent!.items.length).toBeLessThanOrEqual(3);
    paged.push(...(page.structuredContent!.items as Json[]).map((item) => item.reference.id));
    cursor = page.structuredContent!.nextCursor ?? undefined;
  } while (cursor);
  expect(paged).toEqual(everything);
  const tooMany = await mcp.call('capabilities_list', { limit: 101 });
  expect(tooMany).toMatchObject({ isError: true, structuredContent: { error: { code: 'ARGUMENT_INVALID', field: 'limit' } } });

  const found = await mcp.call('capabilities_search', { query: 'time now' });
  expect(found.structuredContent).toMatchObject({ analyzer: 'lexical-v1', items: [{ name: 'time_now', kind: 'tool' }] });
  const { taskId } = found.structuredContent!;
  const reference = found.structuredContent!.items[0].reference as Json;
  expect(reference).toEqual({ id: 'builtin:time_now', catalogGeneration: expect.any(Number), contractHash: expect.stringMatching(/^[0-9a-f]{64}$/), bindingGeneration: expect.any(Number) });

  const inspected = await mcp.call('capabilities_inspect', { reference });
  expect(inspected.structuredContent).toMatchObject({ taskId, contract: { id: 'builtin:time_now', kind: 'tool', riskLevel: 'low' }, held: 'execute' });

  const early = await mcp.call('capability_call', { reference, arguments: {} });
  expect(early).toMatchObject({ isError: true, structuredContent: { taskId, error: { code: 'TOOL_NOT_LOADED' } } });
  expect(early.content).toEqual([{ type: 'text', text: expect.stringMatching(/^TOOL_NOT_LOADED: /) }]);

  const loaded = await mcp.call('tools_load', { reference });
  expect(loaded.structuredContent).toMatchObject({ taskId, inputSchema: { type: 'object' }, admission: { scope: 'step' } });

  const called = await mcp.call('capability_call', { reference, arguments: { timezone: 'UTC' } });
  expect(called.isError).toBeFalsy();
  expect(called.structuredContent).toMatchObject({ ok: true, taskId, requestId: expect.any(String), result: { timezone: 'UTC', iso: expect.any(String) } });
  expect(JSON.parse((called.content[0] as { text: string }).text)).toEqual(called.structuredContent);

  const invalid = await mcp.call('capability_call', { reference, arguments: { timezone: 'Mars/Olympus' } });
  expect(invalid).toMatchObject({ isError: true, structuredContent: { error: { code: 'ARGUMENT_INVALID' } } });
  const stale = await mcp.call('capability_call', { reference: { ...reference, contractHash: '0'.repeat(64) }, arguments: {} });
  expect(stale).toMatchObject({ isError: true, structuredContent: { taskId, error: { code: 'STALE_CAPABILITY', part: 'contractHash' } } });
  const foreign = await mcp.call('capabilities_list', { sessionId: 'operator' });
  expect(foreign).toMatchObject({ isError: true, structuredContent: { error: { code: 'BAD_REQUEST', message: expect.stringContaining('"sessionId"') } } });

  // A skill: search, inspect, activate; changed on disk, its reference is stale.
  const skills = await mcp.call('capabilities_search', { query: `${skillName} drill`, kind: 'skill' });
  const skillReference = skills.structuredContent!.items[0].reference as Json;
  expect(skillReference.id).toBe(`skills:${skillName}`);
  expect((await mcp.call('capabilities_inspect', { reference: skillReference })).structuredContent).toMatchObject({ held: 'activate', contract: { kind: 'skill' } });
  const activated = await mcp.call('skills_activate', { reference: skillReference });
  expect(activated.structuredContent).toMatchObject({ status: 'activated', taskId, body: `# ${skillName}\nStep one.\n`, admission: { scope: 'step' } });
  expect(await mcp.call('skills_activate', { reference: skillReference, direct: true })).toMatchObject({ isError: true, structuredContent: { error: { code: 'BAD_REQUEST' } } });
  writeFileSync(skillPath, skill(`name: ${skillName}\ndescription: Steps for the ${skillName} drill\ntags: [drill]`, `# ${skillName}\nNow different.\n`));
  const changed = await mcp.call('skills_activate', { reference: skillReference });
  expect(changed).toMatchObject({ isError: true, structuredContent: { error: { code: 'STALE_CAPABILITY' } } });

  await expect(mcp.call('no_such_tool')).rejects.toMatchObject({ code: -32602 });
  return { taskId, reference };
}
