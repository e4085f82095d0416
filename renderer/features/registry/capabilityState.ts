/**
 * What the console lets the operator do with a capability. Tools follow the foundation's client
 * policy (shared/policy.ts: executable, read-only, locked); a revoked capability is refused
 * everywhere, whatever it is; skills are read by models, so the console only inspects them.
 */
import type { CatalogEntry } from '../../../shared/capability';
import { toolState, type ToolState } from '../../../shared/policy';

export type CapabilityState = ToolState | 'revoked' | 'skill' | 'skill-hidden';

export function capabilityState(entry: CatalogEntry, whitelist: readonly string[]): CapabilityState {
  if (entry.revoked) return 'revoked';
  if (entry.contract.kind === 'skill') return entry.contract.modelDiscoverable ? 'skill' : 'skill-hidden';
  return toolState(entry.contract, whitelist);
}
