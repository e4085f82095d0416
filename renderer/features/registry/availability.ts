/**
 * Whether a capability can be reached now. A provider with a status (an MCP server) that is not
 * ready keeps its tools in the catalog, so the operator still sees them, but the gateway
 * refuses calls to them (PROVIDER_UNAVAILABLE) until it reconnects. Providers without a status
 * (builtin, skills) are always reachable.
 */
import type { ProviderInfo, ProviderStatus } from '../../../shared/capability';
import { clockTime } from '../../ui/format';

export interface Unavailability {
  provider: string;
  state: Exclude<ProviderStatus['state'], 'ready'>;
  reason: string | null;
  retryAt: string | null;
}

/** Why the provider's capabilities cannot be reached now, or null when they can. */
export function providerUnavailability(provider: ProviderInfo | undefined): Unavailability | null {
  const status = provider?.status;
  if (!provider || !status || status.state === 'ready') return null;
  return { provider: provider.name, state: status.state, reason: status.reason, retryAt: status.retryAt };
}

const stateWords: Record<Unavailability['state'], string> = {
  connecting: 'is connecting',
  failed: 'failed',
  disabled: 'is disabled',
  sign_in_required: 'needs sign-in',
};

/** One sentence for a card, a detail or a disabled button's description. */
export function unavailabilityText({ provider, state, reason, retryAt }: Unavailability): string {
  const why = reason ? `: ${reason}` : '';
  const retry = state === 'failed' && retryAt ? ` Next attempt at ${clockTime(retryAt)}.` : '';
  return `Server ${provider} ${stateWords[state]}${why}.${retry}`;
}
