/**
 * Who is calling and what they may do: the bearer token becomes a principal, and each operation's
 * `audience` (shared/api.ts) says whether agents may run it. Agents also stay in sessions of their
 * own. IPC is always the operator; so is whoever holds the gateway's own token.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { operations, type OperationName } from '../../shared/api';
import { CapstanError } from '../../shared/errors';
import { agentNameOf, agentPrincipal, isAgent, OPERATOR, type Principal } from '../../shared/principal';
import { DEFAULT_SESSION, type TasksView } from '../../shared/tasks';
import type { TaskRuntime } from '../runtime/runtime';
import type { AgentTokens } from '../store/agentTokens';

/** The principal an `Authorization` header stands for, or undefined when it stands for none. */
export type Authenticate = (authorization: string | undefined) => Principal | undefined;

/**
 * The operator's token is compared as SHA-256 digests in constant time, whatever its length; any
 * other token is looked up among the agents' (one indexed read: agentTokens.ts says why that is
 * safe and why it is never cached). Without `agents`, only the operator's token is accepted.
 */
export function bearerAuthenticator(operatorToken: string, agents?: AgentTokens): Authenticate {
  const sha256 = (value: string) => hash('sha256', value, 'buffer');
  const operatorDigest = sha256(operatorToken);
  return (authorization) => {
    const presented = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1];
    if (!presented) return undefined;
    if (timingSafeEqual(sha256(presented), operatorDigest)) return OPERATOR;
    const name = agents?.authenticate(presented);
    return name === undefined ? undefined : agentPrincipal(name);
  };
}

/**
 * Refuses what the principal may not do, before the input is even read: an operation whose
 * audience is the operator's, and, from an agent, a `confirmation` (an agent never confirms for
 * itself; its calls wait for the operator's approval instead) or a direct skill activation (the
 * operator's `/name`, which reaches skills hidden from the model; refused whatever the name, so
 * the answer says nothing of which hidden skills exist).
 */
export function authorize(operation: OperationName, principal: Principal, rawInput: unknown): void {
  if (principal === OPERATOR) return;
  const { audience, method, path } = operations[operation];
  if (audience !== 'any') throw forbidden(principal, `${method} ${path} is the operator's`);
  const input = typeof rawInput === 'object' && rawInput !== null ? rawInput : undefined;
  if (operation === 'callTool' && input && Object.hasOwn(input, 'confirmation')) {
    throw forbidden(principal, 'an agent cannot confirm a call; a call that needs confirmation waits for the operator to approve it');
  }
  if (operation === 'skillsActivate' && input && Object.hasOwn(input, 'direct') && (input as { direct?: unknown }).direct !== false) {
    throw forbidden(principal, "direct activation (/name) is the operator's; an agent activates a skill by the reference discovery gave it");
  }
}

export const forbidden = (principal: Principal, why: string) => new CapstanError('FORBIDDEN_FOR_AGENT', `${principal}: ${why}`);

/**
 * The session a principal works in when it names none: `operator` for the operator, its own
 * `agent:<name>` for an agent.
 */
export const defaultSession = (principal: Principal): string => (isAgent(principal) ? principal : DEFAULT_SESSION);

/** A session of the principal's own with a suffix, e.g. one per MCP client: `agent:<name>/<suffix>`. */
export const sessionFor = (principal: Principal, suffix: string): string => `${defaultSession(principal)}/${suffix}`;

/** Agents act only in sessions of their own (`agent:<name>`, `agent:<name>/…`); the operator in every session. */
export function ownsSession(principal: Principal, sessionId: string): boolean {
  if (!isAgent(principal)) return true;
  return sessionId === principal || sessionId.startsWith(`${principal}/`);
}

export function assertOwnsSession(principal: Principal, sessionId: string): void {
  if (!ownsSession(principal, sessionId)) {
    throw forbidden(principal, `session "${sessionId}" is not ${agentNameOf(principal)}'s; an agent works in "${principal}" or "${principal}/<name>"`);
  }
}

/** A task belongs to its session's owner. */
export function assertOwnsTask(principal: Principal, taskId: string, tasks: TaskRuntime): void {
  if (isAgent(principal)) assertOwnsSession(principal, tasks.get(taskId).sessionId);
}

/**
 * Keeps an agent's operation inside its own sessions: a task or session it names must be its own,
 * and naming neither means its default session. The operator's input passes as it is.
 */
export function withinOwnSessions<T extends { sessionId?: string | undefined; taskId?: string | undefined }>(input: T, principal: Principal, tasks: TaskRuntime): T {
  if (!isAgent(principal)) return input;
  if (input.taskId !== undefined) assertOwnsTask(principal, input.taskId, tasks);
  if (input.sessionId !== undefined) assertOwnsSession(principal, input.sessionId);
  return input.sessionId === undefined && input.taskId === undefined ? { ...input, sessionId: principal } : input;
}

/** What an agent sees of `GET /tasks`: its own sessions and their tasks (no total: it would count everyone's). */
export function ownTasks(view: TasksView, principal: Principal): TasksView {
  if (!isAgent(principal)) return view;
  const own = (sessionId: string) => ownsSession(principal, sessionId);
  const { finishedTotal: _everyones, ...rest } = view;
  return { ...rest, sessions: view.sessions.filter((session) => own(session.id)), tasks: view.tasks.filter((task) => own(task.sessionId)) };
}
