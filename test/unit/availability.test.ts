/** Tools of an MCP server that is not ready are unavailable, with the reason (renderer/features/registry/availability.ts). */
import { describe, expect, it } from 'vitest';
import { providerUnavailability, unavailabilityText } from '../../renderer/features/registry/availability';
import type { ProviderInfo } from '../../shared/capability';

describe('providerUnavailability', () => {
  const provider = (status: ProviderInfo['status']): ProviderInfo => ({ name: 'everything', kind: 'mcp', enabled: true, status, bindingGeneration: 1, tools: 3, skills: 0, diagnostics: 0 });
  const status = (state: 'connecting' | 'ready' | 'failed', reason: string | null, retryAt: string | null) => ({ state, reason, retryAt, since: '', stderr: [], protocolVersion: null });

  it('is null for providers without a status and for ready ones', () => {
    expect(providerUnavailability(provider(undefined))).toBeNull();
    expect(providerUnavailability(provider(status('ready', null, null)))).toBeNull();
    expect(providerUnavailability(undefined)).toBeNull();
  });

  it('says why and when the next attempt is', () => {
    const failed = providerUnavailability(provider(status('failed', 'exited with code 1', '2026-01-01T10:00:05.000Z')));
    expect(failed).toMatchObject({ provider: 'everything', state: 'failed', reason: 'exited with code 1' });
    expect(unavailabilityText(failed!)).toMatch(/^Server everything failed: exited with code 1\. Next attempt at \d\d:\d\d:05\.000\.$/);
    expect(unavailabilityText(providerUnavailability(provider(status('connecting', null, null)))!)).toBe('Server everything is connecting.');
  });
});
