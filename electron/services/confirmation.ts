/**
 * How a call that needs confirmation gets it: the one module that knows. Each way in supplies a
 * strategy and nothing else; no entry ever confirms its own call.
 *
 * - `challenge`: the operator over HTTP (and `capstan call`). A call without a valid answer is
 *   refused with a single-use challenge bound to the tool, the exact arguments and the session
 *   (challenges.ts); the same call sent again with `"confirmation": "<id>"` runs.
 * - `dialog`: the operator in the desktop app. The main process asks in a native dialog while the
 *   call waits in its confirm step; the page never confirms.
 * - `approval`: an agent (an agent token over REST or MCP, a Harn script). The call waits in the
 *   approvals queue until the operator approves, denies, it expires or its caller goes away.
 *
 * The same strategy decides how the operator approves an agent's call: through the dialog when
 * the operator is at the desktop app, directly otherwise.
 */
import type { ApprovalDecisionInput, ApprovalView, CallReview } from '../../shared/approvals';
import { CapstanError } from '../../shared/errors';
import { isAgent, type Principal } from '../../shared/principal';
import type { Approvals, ApprovalWait } from './approvals';
import type { Challenges } from './challenges';

/** Asks the operator about one call; resolves true only on an explicit yes. */
export type AskOperator = (review: CallReview) => Promise<boolean>;

export type ConfirmationStrategy =
  | { kind: 'challenge' }
  | { kind: 'dialog'; ask: AskOperator }
  | {
      kind: 'approval';
      /** Told while the call waits: at once, then every few seconds (the MCP entry sends progress). */
      onWaiting?: ((wait: ApprovalWait) => void) | undefined;
      /** Aborted when the caller goes away (a Harn run stops): the approval is withdrawn. */
      signal?: AbortSignal | undefined;
    };

/** The strategy of a caller whose entry names none: the operator answers a challenge, an agent waits for approval. */
export const strategyFor = (principal: Principal): ConfirmationStrategy => (isAgent(principal) ? { kind: 'approval' } : { kind: 'challenge' });

/** The call as its caller sent it, which a challenge is bound to. */
export interface CallAsSent {
  /** The tool as the caller named it (`http_check` or `builtin:http_check`). */
  tool: string;
  /** The challenge id the caller answered with, if any. */
  answer: string | undefined;
  /** The ledger's keyed digest of the arguments, recorded with the confirmation. */
  argumentsDigest: string;
}

export class Confirmation {
  constructor(
    private readonly challenges: Challenges,
    private readonly approvals: Approvals,
  ) {}

  /**
   * The confirm step of one call (the runtime runs it after the grant and mutation checks):
   * resolves with the facts the ledger records as the call's confirmation, or throws.
   * `stopped` aborts when the call's task stops running.
   */
  confirm(strategy: ConfirmationStrategy, review: CallReview, call: CallAsSent): (stopped: AbortSignal) => Promise<Record<string, unknown>> {
    const { argumentsDigest } = call;
    switch (strategy.kind) {
      case 'challenge':
        return async () => this.#redeem(review, call);
      case 'dialog':
        return async () => {
          if (!(await strategy.ask(review))) throw new CapstanError('CONFIRMATION_REQUIRED', `the operator declined to run ${review.tool.name}`);
          return { confirmedBy: 'dialog', argumentsDigest };
        };
      case 'approval':
        return (stopped) =>
          this.approvals.wait(review, { signal: strategy.signal ? AbortSignal.any([stopped, strategy.signal]) : stopped, onWaiting: strategy.onWaiting });
    }
  }

  /**
   * The operator's decision on an agent's waiting call. Approving confirms that call, so at the
   * desktop app the operator is asked in the same dialog first, bound to the arguments it
   * showed; a denial needs no second question.
   */
  async decide(input: ApprovalDecisionInput, strategy: ConfirmationStrategy): Promise<ApprovalView> {
    if (strategy.kind !== 'dialog' || input.decision !== 'approve') return this.approvals.decide(input);
    const approval = this.approvals.list().pending.find(({ id }) => id === input.id);
    // One that ended, or digests that differ: the queue answers why.
    if (!approval || (input.argumentsDigest ?? approval.argumentsDigest) !== approval.argumentsDigest) return this.approvals.decide(input);
    const { requestId, principal, taskId, sessionId, tool, arguments: args, argumentsDigest } = approval;
    if (!(await strategy.ask({ requestId, principal, taskId, sessionId, tool, arguments: args }))) {
      throw new CapstanError('CONFIRMATION_REQUIRED', `the operator did not confirm approving ${principal}'s call to ${tool.name}; it still waits`);
    }
    return this.approvals.decide({ ...input, argumentsDigest });
  }

  /**
   * The HTTP round trip: a call without a valid challenge answer is refused with a new challenge
   * bound to the tool, the exact arguments and the session the call runs in (the task's, so a
   * call naming only its task is bound as well); a redeemed one is what gets recorded.
   */
  #redeem({ arguments: args, sessionId }: CallReview, { tool, answer, argumentsDigest }: CallAsSent): Record<string, unknown> {
    let reason = 'this tool needs an operator confirmation';
    if (answer !== undefined) {
      const outcome = this.challenges.redeem(answer, tool, args, sessionId);
      if (outcome.ok) return { challengeId: answer, argumentsDigest };
      reason = outcome.reason;
    }
    const challenge = this.challenges.issue(tool, args, sessionId);
    throw new CapstanError('CONFIRMATION_REQUIRED', `${reason}; re-send the same call with "confirmation": "${challenge.id}" before ${challenge.expiresAt}`, {
      challenge,
    });
  }
}
