/** Catalog fixtures for unit tests: plain tools, and a provider whose contents a test changes. */
import type { Provider, ProviderContents } from '../../electron/catalog/provider';
import type { ToolDefinition } from '../../electron/catalog/tool';

export const tool = (name: string, description = `does ${name}`): ToolDefinition => ({
  name,
  title: name,
  description,
  riskLevel: 'low',
  needConfirm: false,
  mutating: false,
  tags: [],
  inputSchema: { type: 'object', additionalProperties: false },
  returnExample: {},
  run: () => name,
});

/** A provider whose tools and diagnostics the test changes, reloading the catalog by hand. */
export function mutableProvider(name: string, tools: ToolDefinition[]) {
  const state: { tools: ToolDefinition[]; diagnostics: ProviderContents['diagnostics'] } = { tools, diagnostics: [] };
  const provider: Provider = { name, kind: 'mcp', load: (): ProviderContents => ({ tools: state.tools, skills: [], diagnostics: state.diagnostics }) };
  return { provider, state };
}
