/**
 * What the console lets the operator do with a capability. Tools follow the foundation's client
 * policy (shared/policy.ts: executable, read-only, locked); a revoked capability is refused
 * everywhere, whatever it is; a held tool (pinned contracts) is refused until reviewed; a tool Capstan cannot run (`runnable: false` in its contract, e.g. an
 * MCP tool its server runs only as a task) is shown as such whatever its server's state; a tool whose server is not ready (./availability.ts) cannot run
 * until it is; skills are read by models, so the console only inspects them; an MCP server's
 * resources (and templates) are read and its prompts got, from their own detail views.
 */
import type { CatalogEntry } from '../../../shared/capability';
import { toolState, type ToolState } from '../../../shared/policy';

export type CapabilityState = ToolState | 'revoked' | 'held' | 'not-runnable' | 'unavailable' | 'skill' | 'skill-hidden' | 'readable' | 'prompt';

/** `held`: an MCP tool whose descriptor is not as pinned (shared/pins.ts), refused with CONTRACT_CHANGED until the operator accepts it. */
export function capabilityState(entry: CatalogEntry, whitelist: readonly string[], unavailable = false, held = false): CapabilityState {
  if (entry.revoked) return 'revoked';
  if (held) return 'held';
  if (entry.contract.kind === 'skill') return entry.contract.modelDiscoverable ? 'skill' : 'skill-hidden';
  if (unavailable) return 'unavailable';
  // An MCP server's resources and templates are read, its prompts got: no confirmation, nothing changes.
  if (entry.contract.kind === 'resource' || entry.contract.kind === 'resourceTemplate') return 'readable';
  if (entry.contract.kind === 'prompt') return 'prompt';
  if (entry.contract.runnable === false) return 'not-runnable';
  return toolState(entry.contract, whitelist);
}
