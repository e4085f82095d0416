/**
 * Confirmation challenges: single-use, short-lived, bound to one tool, a digest of its exact
 * arguments and the session that asked. Only whoever holds a challenge id can run the confirmed
 * call, and only in that session: an id that leaks to another client (an agent's session, say)
 * confirms nothing there.
 */
import { randomUUID } from 'node:crypto';
import type { ConfirmationChallenge } from '../../shared/api';
import { sha256Hex } from '../catalog/digest';

export const CONFIRMATION_TTL_MS = 60_000;
/** Outstanding challenges are capped so a flood of unconfirmed calls cannot grow memory. */
const MAX_OUTSTANDING = 1000;

export type RedeemOutcome = { ok: true } | { ok: false; reason: string };

export class Challenges {
  readonly #pending = new Map<string, ConfirmationChallenge & { sessionId: string; expiresAtMs: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  issue(tool: string, args: unknown, sessionId: string): ConfirmationChallenge {
    this.#sweep();
    if (this.#pending.size >= MAX_OUTSTANDING) {
      const oldest = this.#pending.keys().next().value;
      if (oldest !== undefined) this.#pending.delete(oldest);
    }
    const expiresAtMs = this.now() + CONFIRMATION_TTL_MS;
    const challenge = { id: randomUUID(), tool, argumentsDigest: sha256Hex(args), expiresAt: new Date(expiresAtMs).toISOString() };
    this.#pending.set(challenge.id, { ...challenge, sessionId, expiresAtMs });
    return challenge;
  }

  /** Consumes the challenge whatever the outcome: a wrong presentation burns it. */
  redeem(id: string, tool: string, args: unknown, sessionId: string): RedeemOutcome {
    const challenge = this.#pending.get(id);
    this.#pending.delete(id);
    if (!challenge) return { ok: false, reason: 'the confirmation is unknown or was already used' };
    if (challenge.expiresAtMs <= this.now()) return { ok: false, reason: 'the confirmation expired' };
    if (challenge.sessionId !== sessionId) return { ok: false, reason: 'the confirmation was issued in another session' };
    if (challenge.tool !== tool) return { ok: false, reason: `the confirmation was issued for ${challenge.tool}` };
    if (challenge.argumentsDigest !== sha256Hex(args)) return { ok: false, reason: 'the arguments changed since the confirmation' };
    return { ok: true };
  }

  #sweep(): void {
    const now = this.now();
    for (const [id, challenge] of this.#pending) if (challenge.expiresAtMs <= now) this.#pending.delete(id);
  }
}
