/**
 * The gateway's IPC entry, free of Electron so it runs and is tested under plain Node: which
 * frames may call, and how a channel's raw payload becomes one reply. A tool that needs
 * confirmation is confirmed by the operator in a native dialog owned by the main process (`ask`),
 * never by the page.
 */
import type { OperationName } from '../../shared/api';
import type { CallReview } from '../../shared/approvals';
import { CapstanError } from '../../shared/errors';
import { isOperationName, type IpcReply } from '../../shared/ipc';
import { isAgent, OPERATOR } from '../../shared/principal';
import type { Logger } from '../logger';
import { dispatch, errorEnvelope, resolveRequestId, type ApiHandlers, type CallContext } from '../services/api';
import type { AskOperator } from '../services/confirmation';
import { visibleText } from '../../shared/visibleText';
import { BODY_LIMIT_BYTES } from './http';
import { consentPrompt, type ConfirmationPrompt, type ConsentLookups } from './ipcConsent';

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

export interface IpcDispatcherParts {
  handlers: ApiHandlers;
  logger: Logger;
  /** Puts a call that needs confirmation, or an agent's call awaiting approval, to the operator in a native dialog. */
  ask: AskOperator;
  /** Shows a native dialog for a change the window asked for (ipcConsent.ts): true when the operator approved it. */
  consent: (prompt: ConfirmationPrompt) => Promise<boolean>;
}

/**
 * Dispatches each channel's payload as the operator, with the native dialog as the confirmation
 * strategy (services/confirmation.ts): a call that needs confirmation, or an approval of an agent's
 * call, waits while the main process asks, and so does a change the page may not make on its own
 * word (ipcConsent.ts). One question at a time: concurrent ones queue behind the dialog on screen.
 */
export function createIpcDispatcher({ handlers, logger, ask, consent }: IpcDispatcherParts): IpcDispatcher {
  let pendingQuestion: Promise<unknown> = Promise.resolve();
  const inTurn = <T, A>(question: (about: A) => Promise<T>) => (about: A): Promise<T> => {
    const answer = pendingQuestion.then(() => question(about));
    pendingQuestion = answer.catch(() => undefined);
    return answer;
  };
  const dialog = { kind: 'dialog', ask: inTurn(ask) } as const;
  const consentInTurn = inTurn(consent);
  /** A change the window asked for is waiting for the operator's answer: the window may not queue more behind it. */
  let consentPending = false;

  /** What a dialog says of a change Capstan already holds, read as the operator. */
  const lookups = (context: CallContext): ConsentLookups => ({
    pinDiff: async (id) => {
      const diff = await dispatch(handlers, 'getPinDiff', { id }, context);
      return diff.ok ? diff.value : undefined;
    },
    ask: async (id) => {
      const asks = await dispatch(handlers, 'listAsks', undefined, context);
      return asks.ok ? asks.value.pending.find((pending) => pending.id === id) : undefined;
    },
  });

  return async (operation, rawPayload) => {
    const requestId = resolveRequestId(operation === 'callTool' ? fieldOf(rawPayload, 'requestId') : undefined);
    const log = logger.child({ requestId, transport: 'ipc', operation });
    // Only Capstan's own window reaches this (main checks the sender): the operator, always.
    const context: CallContext = { requestId, log, principal: OPERATOR, confirm: dialog };
    if (!isOperationName(operation)) return errorEnvelope(new CapstanError('BAD_REQUEST', `unknown operation "${operation}"`), context);
    let plain: unknown;
    try {
      plain = asJson(rawPayload);
    } catch (error) {
      return errorEnvelope(error as CapstanError, context);
    }
    const payload = operation === 'callTool' ? withoutConfirmation(plain, log) : plain;
    const prompt = await consentPrompt(operation, payload, lookups(context));
    if (prompt) {
      if (consentPending) return errorEnvelope(new CapstanError('CONFIRMATION_DENIED', `${prompt.options.title}: another change awaits the operator's answer in the system dialog; nothing changed`), context);
      consentPending = true;
      let approved: boolean;
      try {
        approved = (await consentInTurn(prompt)) && prompt.approveId !== undefined;
      } finally {
        consentPending = false;
      }
      log.info({ approved }, 'asked the operator in the system dialog for a change the window asked for');
      if (!approved) return errorEnvelope(new CapstanError('CONFIRMATION_DENIED', `${prompt.options.title}: not approved in the system dialog, so nothing changed`), context);
    }
    const answer = await dispatch(handlers, operation, payload, context);
    return answer.ok ? { ok: true, value: answer.value } : answer.envelope;
  };
}

export type IpcDispatcher = (operation: string, rawPayload: unknown) => Promise<IpcReply<OperationName>>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const fieldOf = (payload: unknown, field: string): unknown => (isRecord(payload) ? payload[field] : undefined);

/**
 * The page's payload as HTTP would carry it: plain JSON, within the same 1 MiB. IPC clones
 * structures, which keeps shared references (a few bytes that are a tree of 2^40 nodes to every
 * check that walks them) and values JSON has no word for (a BigInt); a page that sends either is
 * broken or hostile, and is told so rather than walked.
 */
function asJson(payload: unknown): unknown {
  const seen = new Set<object>();
  const pending: unknown[] = [payload];
  while (pending.length > 0) {
    const value = pending.pop();
    if (value === null || value === undefined || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number') continue;
    if (typeof value !== 'object') throw new CapstanError('BAD_REQUEST', `the payload holds a ${typeof value}, which JSON cannot carry`);
    if (seen.has(value)) throw new CapstanError('BAD_REQUEST', 'the payload holds one object in two places, which JSON cannot carry');
    seen.add(value);
    for (const child of Array.isArray(value) ? value : Object.values(value)) pending.push(child);
  }
  // An operation that takes nothing is sent nothing, as an HTTP GET has no body.
  if (payload === undefined) return undefined;
  const text = JSON.stringify(payload);
  if (Buffer.byteLength(text) > BODY_LIMIT_BYTES) throw new CapstanError('PAYLOAD_TOO_LARGE', `the payload is over ${BODY_LIMIT_BYTES / 1024 / 1024} MiB of JSON`);
  return JSON.parse(text) as unknown;
}

/** The page cannot confirm its own calls, so a `confirmation` it sends is dropped, not trusted. */
function withoutConfirmation(payload: unknown, log: Logger): unknown {
  if (!isRecord(payload) || !Object.hasOwn(payload, 'confirmation')) return payload;
  log.warn('ignored a confirmation sent by the page; only the operator confirms over IPC');
  const { confirmation: _ignored, ...rest } = payload;
  return rest;
}

/** The longest arguments JSON a dialog shows; longer ones cannot be reviewed, so cannot be approved. */
export const MAX_REVIEWABLE_ARGUMENTS = 4000;

/**
 * What the native confirmation dialog says: the tool, its risk and the exact arguments. The
 * arguments (an agent's), the title and the description (a server's) are shown with their
 * control, bidirectional and invisible characters as visible stand-ins, as everywhere else a call
 * is reviewed: `alice\u202E0001$` must not read as `alice$1000` in the dialog that approves it.
 */
export function confirmationPrompt({ tool, arguments: args, requestId, principal }: CallReview): ConfirmationPrompt {
  // The operator is asked about an agent's call when approving it, about their own when running it.
  const agent = isAgent(principal) ? principal : undefined;
  const json = visibleText(JSON.stringify(args, null, 2), { keepNewlines: true });
  const title = visibleText(tool.title);
  // A builtin by its name, any other tool by its id: one server's tool never passes for another's or a builtin.
  const name = tool.id.startsWith('builtin:') ? tool.name : tool.id;
  const reviewable = json.length <= MAX_REVIEWABLE_ARGUMENTS;
  const effect = tool.mutating ? 'changes state' : 'does not change state';
  const shown = reviewable
    ? `Arguments, exactly as they will be sent:\n${json}`
    : `The arguments are ${json.length} characters long, too long to review here; send this call over the HTTP API instead.`;
  return {
    options: {
      type: 'warning',
      title: agent ? 'Approve agent call' : 'Confirm tool call',
      message: agent ? `Let ${agent} run ${title} (${name})?` : `Run ${title} (${name})?`,
      detail: `Risk: ${tool.riskLevel} · ${effect}\n${visibleText(tool.description, { keepNewlines: true })}\n\n${shown}\n\nRequest ${requestId}`,
      // Cancel comes first and is the default, so Enter or Escape never runs the call.
      buttons: reviewable ? ['Cancel', agent ? `Approve ${name}` : `Run ${name}`] : ['Cancel'],
      defaultId: 0,
      cancelId: 0,
      noLink: true,
    },
    approveId: reviewable ? 1 : undefined,
  };
}
