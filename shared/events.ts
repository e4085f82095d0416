/**
 * Live events from the gateway: Server-Sent Events on `GET /events` over HTTP, the
 * `capstan:event` channel over IPC. Clients refresh what an event says has changed.
 */
import { z } from 'zod';

export const CatalogChanged = z.object({
  type: z.literal('catalog'),
  catalogGeneration: z.number().int(),
  provider: z.string(),
  reason: z.enum(['loaded', 'changed', 'diagnostics', 'enabled', 'disabled', 'revoked', 'restored']),
});

export const CapstanEvent = z.discriminatedUnion('type', [CatalogChanged]);
export type CapstanEvent = z.infer<typeof CapstanEvent>;

/** Where HTTP clients read the event stream (IPC uses IPC_EVENT_CHANNEL from ipc.ts). */
export const EVENTS_PATH = '/events';
