/** What agents are told about a tool: its provider's declarations, tightened (never loosened) by Capstan's decision. */
import { describe, expect, it } from 'vitest';
import type { ToolContract } from '../../shared/capability';
import { toolAnnotations } from '../../shared/mcpTools';
import { declaredIcons, notRunnableReason } from '../../electron/providers/mcp/policy';
import { callOutputSchema } from '../../electron/transports/mcp/loadedTools';

const tool = (over: Partial<ToolContract>): ToolContract => ({
  id: 'srv:t',
  kind: 'tool',
  provider: 'srv',
  name: 't',
  title: 't',
  description: 'a tool',
  tags: [],
  riskLevel: 'low',
  needConfirm: false,
  mutating: false,
  modelDiscoverable: true,
  inputSchema: { type: 'object' },
  returnExample: null,
  ...over,
});

describe('toolAnnotations', () => {
  it("tells a builtin by Capstan's decision alone", () => {
    expect(toolAnnotations(tool({ mutating: false }))).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: false });
    expect(toolAnnotations(tool({ mutating: true }))).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
  });

  it("keeps a provider's hints when Capstan agrees, with MCP's defaults for what it left out", () => {
    const declared = { title: 'T', readOnlyHint: true, idempotentHint: true, openWorldHint: false };
    expect(toolAnnotations(tool({ declared }))).toEqual({ title: 'T', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    // Nothing declared: not read-only, destructive, not idempotent, open world.
    expect(toolAnnotations(tool({ declared: null, mutating: true, needConfirm: true }))).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    // Not read-only, not destructive, and Capstan asks no confirmation: stays not destructive.
    expect(toolAnnotations(tool({ declared: { readOnlyHint: false, destructiveHint: false }, mutating: true }))).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  });

  it('only tightens: a read-only claim Capstan overrides is not read-only, and a confirmation makes it destructive', () => {
    const declared = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    expect(toolAnnotations(tool({ declared, mutating: true }))).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(toolAnnotations(tool({ declared, mutating: true, needConfirm: true }))).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(toolAnnotations(tool({ declared: { readOnlyHint: false, destructiveHint: false }, mutating: true, needConfirm: true }))).toMatchObject({ destructiveHint: true });
  });
});

describe('callOutputSchema', () => {
  const declared = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { n: { type: 'number' } } };
  it("nests the provider's schema (without $schema) where its structured result sits in Capstan's response", () => {
    expect(callOutputSchema(declared)).toMatchObject({ type: 'object', properties: { result: { properties: { structuredContent: { type: 'object', properties: { n: { type: 'number' } } } } } } });
    expect(JSON.stringify(callOutputSchema(declared))).not.toContain('$schema');
  });
  it('lists none without a schema, or with one that refers outside itself', () => {
    expect(callOutputSchema(null)).toBeUndefined();
    expect(callOutputSchema({ type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { type: 'string' } } })).toBeUndefined();
    expect(callOutputSchema({ $id: 'https://example.invalid/s', type: 'object' })).toBeUndefined();
  });
});

describe('declared icons and runnability', () => {
  it("keeps only MCP's Icon fields, and only icons with a src", () => {
    expect(declaredIcons([{ src: 'data:image/png;base64,AA', mimeType: 'image/png', sizes: ['16x16'], theme: 'dark', extra: 1 }, { mimeType: 'image/png' }, 'x', null])).toEqual([
      { src: 'data:image/png;base64,AA', mimeType: 'image/png', sizes: ['16x16'], theme: 'dark' },
    ]);
    expect(declaredIcons(undefined)).toEqual([]);
  });
  it('every task support MCP defines runs (required and optional as MCP tasks); a value Capstan does not know is not runnable', () => {
    for (const taskSupport of ['required', 'optional', 'forbidden']) expect(notRunnableReason({ taskSupport }), taskSupport).toBeUndefined();
    expect(notRunnableReason(undefined)).toBeUndefined();
    expect(notRunnableReason({ taskSupport: 'sometimes' })).toMatch(/taskSupport: "sometimes", which Capstan does not know how to run/);
  });
});
