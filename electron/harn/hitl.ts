/**
 * A Harn script's human-in-the-loop prompts, answered by the operator in Approvals.
 *
 * How they reach the host (crates/harn-vm/src/stdlib/hitl.rs, the same in v0.7.50 and 0.10.x):
 * `ask_user(prompt, options)` and `request_approval(action, options)` (and `dual_control`) log a
 * request, send the bridge notification `harn.hitl.requested` with the request envelope
 * `{ request_id, kind, agent, trace_id, run_id?, requested_at, payload }` (request ids
 * `hitl_question_…`, `hitl_approval_…`, `hitl_dual_control_…`, `hitl_escalation_…`), and wait on
 * a waitpoint (24 h by default) until the host sends the request `harn.hitl.respond` (v0.7.50
 * crates/harn-serve/src/adapters/acp/mod.rs handle_hitl_respond): params are a HitlHostResponse
 * `{ request_id, answer?, approved?, accepted?, reviewer?, reason?, metadata?, responded_at?,
 * signature? }` (plus `sessionId`, which picks the session's event log), answered `{ ok: true }`,
 * -32602 for params that do not fit, -32000 for an unknown request id.
 *
 * How Harn reads the response: a question completes with `answer` whatever it is (a missing
 * answer is nil). An approval counts an `approved: true` only with a `reviewer` (one of the
 * request's `reviewers`, if it names any) towards its quorum; any other response denies it, the
 * script getting ApprovalDeniedError with `reason` as its message.
 *
 * What Capstan does: each goes to the operator's Approvals queue (recorded in the ledger as every
 * approval is: approval_requested, approval_decided). request_approval: approve is `{ approved:
 * true, reviewer: "capstan-operator" }` (with the operator's note as `reason`), anything else
 * `{ approved: false, reason }`. An approval Capstan's single reviewer can never satisfy (a
 * quorum over 1, or named reviewers) is denied at once. ask_user: the operator answers by
 * approving with a note, the note being the answer; deny, approve without a note, no decision
 * within `harn.permissionTimeoutMs`, or the run stopping send `{ answer: null, reason }`: the
 * script's `ask_user` returns nil (its default's type, or a schema error, when it gave one).
 * Escalations ask for acceptance by a named person; Capstan does not answer them.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { CapstanError } from '../../shared/errors';
import type { Principal } from '../../shared/principal';
import { runAs } from '../runtime/principal';
import type { RunningTask } from '../runtime/task';
import type { HarnApprovals } from './bridge';
import { oversizedField, oversizedReason } from './reviewSize';
import type { UpdateLog } from './updates';

/** The reviewer Capstan answers as: Harn counts an approval only with one. */
export const CAPSTAN_REVIEWER = 'capstan-operator';
const RESPOND_TIMEOUT_MS = 30_000;
/** Requests waiting for the operator at once; each holds an approval and, once decided, an answer to Harn. */
const MAX_OPEN = 100;
/**
 * Refusals ("too many open requests") waiting for Harn's acknowledgement at once. Each is a
 * request to Harn with its own timer: a child that floods notifications and never answers would
 * otherwise hold one per notification. Past this, a request is not answered at all (the script
 * waits, as for an escalation), and the run's log says so once.
 */
const MAX_REFUSALS_UNACKNOWLEDGED = 100;

export const HitlRequested = z.looseObject({
  request_id: z.string().regex(/^hitl_(question|approval|dual_control|escalation)_/).max(400),
  kind: z.enum(['question', 'approval', 'dual_control', 'escalation']),
  agent: z.string().max(300).optional(),
  payload: z.looseObject({}).optional(),
});

export interface HitlRun {
  taskId: string;
  script: string;
  principal: Principal;
  harnSession(): string | undefined;
  log: UpdateLog;
  permissionTimeoutMs: number;
  stopped: AbortSignal;
  /** Sends a request to Harn and resolves with its result. */
  call(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown>;
}

const fieldsOf = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const text = (value: unknown, max = 2000): string | undefined => (typeof value === 'string' ? value.slice(0, max) : undefined);

export function hitlHandler(approvals: HarnApprovals, task: () => RunningTask, run: HitlRun): (params: unknown) => void {
  const open = new Set<string>();
  let refusalsUnacknowledged = 0;
  let unansweredLogged = false;

  async function respond(requestId: string, response: Record<string, unknown>, summary: string): Promise<void> {
    const sessionId = run.harnSession();
    try {
      await run.call('harn.hitl.respond', { ...(sessionId ? { sessionId } : {}), request_id: requestId, ...response, responded_at: new Date().toISOString() }, RESPOND_TIMEOUT_MS);
      run.log.add('permission', `${requestId}: ${summary}`, { status: response.approved === true || (response.answer !== undefined && response.answer !== null) ? 'ok' : 'refused' });
    } catch (error) {
      run.log.add('permission', `${requestId}: ${summary}, but Harn did not take the answer (${error instanceof Error ? error.message.slice(0, 300) : 'error'})`, { status: 'failed' });
    }
  }

  async function ask(request: z.infer<typeof HitlRequested>): Promise<void> {
    const payload = fieldsOf(request.payload);
    const question = request.kind === 'question';
    const what = question ? (text(payload.prompt) ?? '(no prompt)') : (text(payload.action, 300) ?? '(no action)');
    const decline = (why: string) =>
      question
        ? respond(request.request_id, { answer: null, reason: `Capstan: ${why}` }, `no answer (${why})`)
        : respond(request.request_id, { approved: false, reason: `Capstan: ${why}` }, `denied (${why})`);
    const oversized = oversizedField(question ? { schema: payload.schema, default: payload.default } : { args: payload.args, detail: payload.detail, capabilities_requested: payload.capabilities_requested });
    if (oversized) {
      run.log.add('permission', `${request.kind} "${what}": ${oversizedReason(oversized)}`, { status: 'refused' });
      return decline(oversizedReason(oversized));
    }
    if (!question) {
      const quorum = typeof payload.quorum === 'number' ? payload.quorum : typeof payload.approvers_required === 'number' ? payload.approvers_required : 1;
      const reviewers = Array.isArray(payload.reviewers) ? payload.reviewers.filter((r): r is string => typeof r === 'string') : [];
      if (quorum > 1 || (reviewers.length > 0 && !reviewers.includes(CAPSTAN_REVIEWER))) {
        const why = quorum > 1 ? `it needs ${quorum} reviewers and Capstan answers as one` : `it names its reviewers (${reviewers.slice(0, 5).join(', ')}) and Capstan's operator is not one`;
        run.log.add('permission', `${request.kind} "${what}": ${why}`, { status: 'refused' });
        return respond(request.request_id, { approved: false, reason: `Capstan: ${why}` }, 'denied without asking');
      }
    }
    const requestId = `harn-hitl-${randomUUID()}`;
    const timeout = AbortSignal.timeout(run.permissionTimeoutMs);
    run.log.add('permission', `${question ? `ask_user "${what}"` : `${request.kind} "${what}"`} (${request.request_id}): waiting for the operator in Approvals`, { status: 'waiting', requestId });
    try {
      const running = task();
      const decided = await runAs(run.principal, () =>
        approvals.wait(
          {
            requestId,
            principal: run.principal,
            taskId: running.id,
            sessionId: running.sessionId,
            tool: question
              ? {
                  id: 'harn.hitl:ask_user',
                  name: 'ask_user',
                  title: `Question from ${run.script}`,
                  description: `The Harn script ${run.script} asks: ${what} To answer, approve with your answer as the note; deny to decline.`,
                  riskLevel: 'low',
                  mutating: false,
                }
              : {
                  id: `harn.hitl:${request.kind}`,
                  name: request.kind === 'approval' ? 'request_approval' : 'dual_control',
                  title: `Approval for ${what}`,
                  description: `The Harn script ${run.script} asks for approval of the action "${what}" (Harn request ${request.request_id}). Approve to let it go on; deny to refuse.`,
                  riskLevel: 'high',
                  mutating: true,
                },
            arguments: question
              ? { prompt: what, ...(payload.schema !== undefined && payload.schema !== null ? { schema: payload.schema } : {}), ...(payload.default !== undefined && payload.default !== null ? { default: payload.default } : {}) }
              : { action: what, args: payload.args ?? null, detail: payload.detail ?? null, capabilities_requested: payload.capabilities_requested ?? [] },
          },
          { signal: AbortSignal.any([run.stopped, timeout]) },
        ),
      );
      const note = noteOf(approvals, decided);
      if (question) {
        if (!note) return await decline('approved without an answer (the answer is the note)');
        return await respond(request.request_id, { answer: note, reviewer: CAPSTAN_REVIEWER }, 'answered by the operator');
      }
      return await respond(request.request_id, { approved: true, reviewer: CAPSTAN_REVIEWER, ...(note ? { reason: note } : {}) }, 'approved by the operator');
    } catch (error) {
      if (error instanceof CapstanError && error.code === 'CONFIRMATION_DENIED') return decline(typeof error.details?.note === 'string' ? `denied by the operator: ${error.details.note}` : 'denied by the operator');
      const why = timeout.aborted ? `no decision within ${Math.round(run.permissionTimeoutMs / 1000)} s` : run.stopped.aborted ? 'the run stopped' : error instanceof CapstanError ? error.message : 'it could not be asked';
      return decline(why);
    }
  }

  return (params) => {
    const parsed = HitlRequested.safeParse(params);
    if (!parsed.success) return run.log.add('protocol', 'a malformed harn.hitl.requested was ignored');
    const request = parsed.data;
    if (request.kind === 'escalation') return run.log.add('permission', `escalation ${request.request_id}: Capstan does not accept escalations; not answered`, { status: 'refused' });
    if (open.has(request.request_id)) return;
    if (open.size >= MAX_OPEN) {
      if (refusalsUnacknowledged >= MAX_REFUSALS_UNACKNOWLEDGED) {
        if (!unansweredLogged) run.log.add('protocol', `over ${MAX_OPEN} human-in-the-loop requests are open and Harn has not acknowledged ${MAX_REFUSALS_UNACKNOWLEDGED} refusals: further requests are not answered`, { status: 'refused' });
        unansweredLogged = true;
        return;
      }
      refusalsUnacknowledged += 1;
      const refusal = request.kind === 'question' ? { answer: null, reason: 'Capstan: too many open requests' } : { approved: false, reason: 'Capstan: too many open requests' };
      return void respond(request.request_id, refusal, 'refused (too many open)').finally(() => (refusalsUnacknowledged -= 1));
    }
    open.add(request.request_id);
    void ask(request).finally(() => open.delete(request.request_id));
  };
}

/** The operator's note with an approval: the approvals queue keeps it on the ended approval. */
function noteOf(approvals: HarnApprovals, decided: Record<string, unknown>): string | undefined {
  const id = decided.approvalId;
  const ended = approvals.list?.().recent.find((view) => view.id === id);
  return ended?.note?.trim() || undefined;
}
