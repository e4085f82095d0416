/**
 * Whether this console can reach its gateway, as the requests it sends find out: a request
 * that no answer came back for (GATEWAY_UNREACHABLE, the console's own code) marks it
 * unreachable, any answer at all (an error envelope included: the gateway answered) marks it
 * reachable. A dropped event stream is checked with one small request, so a gateway that
 * stopped is noticed at once and one that only restarted is not reported.
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
  /** How many times it was reached again after being unreachable. */
  reconnects: number;
  failed(error: ErrorBody): void;
  answered(): void;
}

export const useReachability = create<ReachabilityState>()((set) => ({
  unreachable: null,
  since: null,
  reconnects: 0,
  failed: (error) => set((state) => ({ unreachable: error, since: state.since ?? Date.now() })),
  answered: () => set((state) => (state.unreachable === null ? {} : { unreachable: null, since: null, reconnects: state.reconnects + 1 })),
}));

/** Whether calls can be sent: false while the gateway is known to be unreachable (Execute is off). */
export const useGatewayReachable = () => useReachability((state) => state.unreachable === null);

/** Grows each time the gateway is reached again; a view resets what it read before when it changes. */
export const useReconnects = () => useReachability((state) => state.reconnects);

/** Whether what a request ended with says anything about the gateway being there. */
function observe(outcome: { ok: true } | { ok: false; error: unknown }): void {
  const { failed, answered } = useReachability.getState();
  if (outcome.ok) return answered();
  const { error } = outcome;
  if (!(error instanceof ApiError)) return; // an abort, or the page's own fault: nothing learnt
  if (error.code === 'GATEWAY_UNREACHABLE') failed(error.body);
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
  for (const name of Object.keys(operations) as OperationName[]) {
    const send = transport[name] as (input: unknown, options?: unknown) => Promise<unknown>;
    Object.assign(watched, {
      [name]: (input: unknown, options?: unknown) =>
        send(input, options).then(
          (value) => (observe({ ok: true }), value),
          (error: unknown) => {
            observe({ ok: false, error });
            throw error;
          },
        ),
    });
  }
  const { callConfirmed } = transport;
  watched.callConfirmed = (request) =>
    callConfirmed(request).then(
      (value) => (observe({ ok: true }), value),
      (error: unknown) => {
        observe({ ok: false, error });
        throw error;
      },
    );
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
