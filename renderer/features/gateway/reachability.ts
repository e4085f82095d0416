/**
 * Whether this console can reach its gateway, as the requests it sends find out: a request
 * that no answer came back for (GATEWAY_UNREACHABLE, the console's own code) marks it
 * unreachable, any answer at all (an error envelope included: the gateway answered) marks it
 * reachable. A dropped event stream is checked with one small request, so a gateway that
 * stopped is noticed at once and one that only restarted is not reported. While it is
 * unreachable, a small request now and then (backing off) notices when it answers again.
 *
 * Each time the gateway is reached again after being unreachable, `reconnects` grows: views
 * holding what they read before (the catalog, errors, the chain's verdict) read again on it.
 */
import { create } from 'zustand';
import type { ErrorBody } from '../../../shared/api';
import { operations, type OperationName } from '../../../shared/api';
import { ApiError } from '../../api/errors';
import type { ConsoleTransport, LiveStatus } from '../../api/transport';

interface ReachabilityState {
  /** Why the gateway is taken to be unreachable (always GATEWAY_UNREACHABLE), or null while it answers. */
  unreachable: ErrorBody | null;
  /** When it was first found unreachable (ms since the epoch), for "since"; null while it answers. */
  since: number | null;
  /** The request that found it so (an operation's name, or `events`), for the operator and for support. */
  foundBy: string | null;
  /** How many times it was reached again after being unreachable. */
  reconnects: number;
  failed(error: ErrorBody, foundBy: string): void;
  answered(): void;
}

export const useReachability = create<ReachabilityState>()((set) => ({
  unreachable: null,
  since: null,
  foundBy: null,
  reconnects: 0,
  failed: (error, foundBy) => set((state) => ({ unreachable: error, since: state.since ?? Date.now(), foundBy })),
  answered: () => set((state) => (state.unreachable === null ? {} : { unreachable: null, since: null, foundBy: null, reconnects: state.reconnects + 1 })),
}));

const FIRST_PROBE_MS = 1_000;
const MAX_PROBE_MS = 30_000;

/** Whether calls can be sent: false while the gateway is known to be unreachable (Execute is off). */
export const useGatewayReachable = () => useReachability((state) => state.unreachable === null);

/** Grows each time the gateway is reached again; a view resets what it read before when it changes. */
export const useReconnects = () => useReachability((state) => state.reconnects);

/** Whether what a request ended with says anything about the gateway being there. */
function observe(operation: string, outcome: { ok: true } | { ok: false; error: unknown }): void {
  const { failed, answered } = useReachability.getState();
  if (outcome.ok) return answered();
  const { error } = outcome;
  if (!(error instanceof ApiError)) return; // an abort, or the page's own fault: nothing learnt
  if (error.code === 'GATEWAY_UNREACHABLE') failed(error.body, operation);
  // INTERNAL_ERROR written by the console (an answer without an envelope) came from something
  // that answered; every other code is the gateway's own answer.
  else answered();
}

/**
 * The transport, with every operation and the event stream's status reported to the
 * reachability store. The wrapped transport behaves exactly as the one it wraps.
 */
export function watchReachability(transport: ConsoleTransport): ConsoleTransport {
  const watched = { ...transport };
  // Every method that asks the gateway: the contract's operations and the transport's own reads.
  const asking = [...(Object.keys(operations) as OperationName[]), 'callConfirmed', 'readCatalog'] as const;
  for (const name of asking) {
    const send = (transport as unknown as Record<string, ((...args: unknown[]) => Promise<unknown>) | undefined>)[name];
    if (typeof send !== 'function') continue;
    Object.assign(watched, {
      [name]: (...args: unknown[]) =>
        send.apply(transport, args).then(
          (value) => (observe(name, { ok: true }), value),
          (error: unknown) => {
            observe(name, { ok: false, error });
            throw error;
          },
        ),
    });
  }
  // While unreachable, one small request now and then finds the gateway back by itself, so a
  // passing failure does not keep Execute off; 1 s, doubling to 30 s, as the event stream backs off.
  let probe: ReturnType<typeof setTimeout> | undefined;
  let delay = FIRST_PROBE_MS;
  useReachability.subscribe((state) => {
    if (state.unreachable === null) {
      clearTimeout(probe);
      probe = undefined;
      delay = FIRST_PROBE_MS;
    } else if (probe === undefined) {
      probe = setTimeout(() => {
        probe = undefined;
        void watched.getSettings(undefined).catch(() => undefined);
      }, delay);
      delay = Math.min(MAX_PROBE_MS, delay * 2);
    }
  });
  watched.subscribe = (listener, options = {}) =>
    transport.subscribe(listener, {
      ...options,
      onStatus: (status: LiveStatus) => {
        options.onStatus?.(status);
        if (status === 'live') useReachability.getState().answered();
        // The stream dropped: a gateway that stopped refuses this at once; one that restarts answers it.
        if (status === 'reconnecting') void watched.getSettings(undefined).catch(() => undefined);
      },
    });
  return watched;
}
