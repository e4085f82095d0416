/**
 * The principal an operation runs for, carried by AsyncLocalStorage from the entry that
 * authenticated it (services/api.ts `dispatch`) down to every ledger entry it causes. Timers and
 * promise chains started inside keep it: a call's `call_finished`, written when its grace period
 * ends long after the request that started it, still names the caller. Outside any request (the
 * restart recovery) it is `system`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { SYSTEM, type Principal } from '../../shared/principal';

const storage = new AsyncLocalStorage<Principal>();

/** Runs `work` (and whatever it starts) on behalf of `principal`. */
export function runAs<T>(principal: Principal, work: () => T): T {
  return storage.run(principal, work);
}

/** Who the current operation runs for; `system` when no request started it. */
export function currentPrincipal(): Principal {
  return storage.getStore() ?? SYSTEM;
}
