/**
 * The gateway's IPC entry, free of Electron so it runs and is tested under plain Node: which
 * frames may call, and how a channel's raw payload becomes one reply envelope. A tool that needs
 * confirmation is confirmed by the operator through `confirm` (in Electron a native dialog owned
 * by the main process), never by the page.
 */
import { operations, type ConfirmationChallenge, type OperationName, type ToolDescriptor } from '../../shared/api';
import { CapstanError } from '../../shared/errors';
import type { IpcReply } from '../../shared/ipc';
import { OPERATOR } from '../../shared/principal';
import type { Logger } from '../logger';
import { asCapstanError, dispatch, errorEnvelope, resolveRequestId, type ApiHandlers, type CallContext, type Reply } from '../services/api';

/**
 * True only for Capstan's own index.html, whatever its hash or query. Paths are compared
 * decoded because Electron's loadFile and Node's pathToFileURL percent-encode differently.
 */
export function isTrustedSender(frameUrl: string, appUrl: string): boolean {
  const frame = fileLocation(frameUrl);
  return frame !== undefined && frame === fileLocation(appUrl);
}

function fileLocation(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'file:' ? `//${parsed.host}${decodePath(parsed.pathname)}` : undefined;
  } catch {
    return undefined;
  }
}

/** A lone `%` (a folder named `100%`) is left as is rather than making the page untrusted. */
function decodePath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

export interface ConfirmationRequest {
  tool: Pick<ToolDescriptor, 'name' | 'title' | 'description' | 'riskLevel' | 'mutating'>;
  /** Exactly the arguments the confirmed call will run with. */
  arguments: Record<string, unknown>;
  /** The challenge the page's own call was answered with; an agent's call waiting for approval has none. */
  challenge?: ConfirmationChallenge | undefined;
  requestId: string;
  /** For an approval: the agent whose call it is (`agent:<name>`). */
  agent?: string | undefined;
}

/** Asks the operator; resolves true only on an explicit approval. */
export type Confirm = (request: ConfirmationRequest) => Promise<boolean>;

export type IpcDispatcher = (operation: string, rawPayload: unknown) => Promise<IpcReply<OperationName>>;

export function createIpcDispatcher({ handlers, logger, confirm }: { handlers: ApiHandlers; logger: Logger; confirm: Confirm }): IpcDispatcher {
  // One question at a time: concurrent calls queue behind the dialog on screen.
  let pendingConfirmation: Promise<unknown> = Promise.resolve();
  const confirmInTurn: Confirm = (request) => {
    const answer = pendingConfirmation.then(() => confirm(request));
    pendingConfirmation = answer.catch(() => undefined);
    return answer;
  };

  /** A call the gateway answers with a challenge is put to the operator, then sent once more with the answer. */
  async function callTool(rawPayload: unknown, context: CallContext): Promise<Reply<'callTool'>> {
    const request = withoutConfirmation(rawPayload, context.log);
    const first = await dispatch(handlers, 'callTool', request, context);
    if (first.ok || first.envelope.error.code !== 'CONFIRMATION_REQUIRED' || !first.envelope.error.challenge) return first;
    const { challenge } = first.envelope.error;

    // The gateway accepted this payload up to the confirmation, so it parses.
    const call = operations.callTool.input.parse(request);
    const { tools } = await handlers.listTools(undefined, context);
    const tool = tools.find((candidate) => candidate.id === call.tool) ?? tools.find((candidate) => candidate.name === call.tool);
    if (!tool) return first;
    const approved = await confirmInTurn({ tool, arguments: call.arguments, challenge, requestId: context.requestId });
    if (!approved) {
      context.log.info({ tool: call.tool }, 'the operator declined the confirmation');
      const declined = new CapstanError('CONFIRMATION_REQUIRED', `the operator declined to run ${call.tool}`).inTask(first.envelope.taskId);
      return { ok: false, status: declined.status, envelope: errorEnvelope(declined, context) };
    }
    context.log.info({ tool: call.tool }, 'the operator confirmed the call');
    return dispatch(handlers, 'callTool', { ...(request as object), confirmation: challenge.id }, context);
  }

  /**
   * Approving an agent's call confirms it, so the page cannot do that alone either: the operator
   * is asked in the same native dialog first, and the decision is bound to the arguments the
   * dialog showed. Denying needs no second question.
   */
  async function decideApproval(rawPayload: unknown, context: CallContext): Promise<Reply<'decideApproval'>> {
    const decision = operations.decideApproval.input.safeParse(rawPayload).data;
    const approval = decision?.decision === 'approve' ? (await handlers.listApprovals(undefined, context)).pending.find(({ id }) => id === decision.id) : undefined;
    // A denial, a malformed payload, an approval that ended or digests that differ: the handler answers.
    if (!decision || !approval || (decision.argumentsDigest ?? approval.argumentsDigest) !== approval.argumentsDigest) {
      return dispatch(handlers, 'decideApproval', rawPayload, context);
    }
    const { tool, arguments: args, requestId, principal, argumentsDigest } = approval;
    if (!(await confirmInTurn({ tool, arguments: args, requestId, agent: principal }))) {
      context.log.info({ tool: tool.id }, 'the operator did not confirm the approval');
      const declined = new CapstanError('CONFIRMATION_REQUIRED', `the operator did not confirm approving ${principal}'s call to ${tool.name}; it still waits`);
      return { ok: false, status: declined.status, envelope: errorEnvelope(declined, context) };
    }
    return dispatch(handlers, 'decideApproval', { ...decision, argumentsDigest }, context);
  }

  return async (operation, rawPayload) => {
    const requestId = resolveRequestId(operation === 'callTool' ? fieldOf(rawPayload, 'requestId') : undefined);
    // Only Capstan's own window reaches this (main checks the sender): the operator, always.
    const context: CallContext = { requestId, log: logger.child({ requestId, transport: 'ipc', operation }), principal: OPERATOR };
    if (!isOperationName(operation)) {
      return errorEnvelope(new CapstanError('BAD_REQUEST', `unknown operation "${operation}"`), context);
    }
    // Asking the operator happens outside the dispatcher, so a failure to ask is a fault too.
    const answer = await (
      operation === 'callTool'
        ? callTool(rawPayload, context)
        : operation === 'decideApproval'
          ? decideApproval(rawPayload, context)
          : dispatch(handlers, operation, rawPayload, context)
    ).catch(
      (error: unknown) => ({ ok: false as const, envelope: errorEnvelope(asCapstanError(error), context) }),
    );
    return answer.ok ? { ok: true, value: answer.value } : answer.envelope;
  };
}

const isOperationName = (value: string): value is OperationName => Object.hasOwn(operations, value);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const fieldOf = (payload: unknown, field: string): unknown => (isRecord(payload) ? payload[field] : undefined);

/** The page cannot confirm its own calls, so a `confirmation` it sends is dropped, not trusted. */
function withoutConfirmation(payload: unknown, log: Logger): unknown {
  if (!isRecord(payload) || !Object.hasOwn(payload, 'confirmation')) return payload;
  log.warn('ignored a confirmation sent by the page; only the operator confirms over IPC');
  const { confirmation: _ignored, ...rest } = payload;
  return rest;
}

/** The longest arguments JSON a dialog shows; longer ones cannot be reviewed, so cannot be approved. */
export const MAX_REVIEWABLE_ARGUMENTS = 4000;

export interface ConfirmationPrompt {
  options: {
    type: 'warning';
    title: string;
    message: string;
    detail: string;
    buttons: string[];
    defaultId: number;
    cancelId: number;
    noLink: boolean;
  };
  /** The button index that approves the call, absent when the call cannot be approved here. */
  approveId: number | undefined;
}

/** What the native confirmation dialog says: the tool, its risk and the exact arguments. */
export function confirmationPrompt({ tool, arguments: args, requestId, agent }: ConfirmationRequest): ConfirmationPrompt {
  const json = JSON.stringify(args, null, 2);
  const reviewable = json.length <= MAX_REVIEWABLE_ARGUMENTS;
  const effect = tool.mutating ? 'changes state' : 'does not change state';
  const shown = reviewable
    ? `Arguments, exactly as they will be sent:\n${json}`
    : `The arguments are ${json.length} characters long, too long to review here; send this call over the HTTP API instead.`;
  return {
    options: {
      type: 'warning',
      title: agent ? 'Approve agent call' : 'Confirm tool call',
      message: agent ? `Let ${agent} run ${tool.title} (${tool.name})?` : `Run ${tool.title} (${tool.name})?`,
      detail: `Risk: ${tool.riskLevel} · ${effect}\n${tool.description}\n\n${shown}\n\nRequest ${requestId}`,
      // Cancel comes first and is the default, so Enter or Escape never runs the call.
      buttons: reviewable ? ['Cancel', agent ? `Approve ${tool.name}` : `Run ${tool.name}`] : ['Cancel'],
      defaultId: 0,
      cancelId: 0,
      noLink: true,
    },
    approveId: reviewable ? 1 : undefined,
  };
}
