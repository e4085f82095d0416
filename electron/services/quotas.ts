/**
 * What one agent may hold at once (config.json `quotas`): MCP sessions, tasks that have not
 * ended, calls waiting for the operator's approval. Each is checked where the thing is made, and
 * refused with LIMIT_REACHED naming the quota, so one agent cannot fill what everyone shares
 * (the runtime's memory, the operator's Tasks and Approvals views, the next start's recovery).
 * The operator has no quota, and one agent's use never counts against another's.
 */
import { CapstanError } from '../../shared/errors';
import { isAgent, type Principal } from '../../shared/principal';
import type { CapstanConfig } from '../config';

export type AgentQuotas = CapstanConfig['quotas'];

const WHAT: Record<keyof AgentQuotas, string> = {
  mcpSessions: 'MCP sessions',
  tasks: 'tasks that have not ended',
  pendingApprovals: 'calls waiting for approval',
};

const NEXT: Record<keyof AgentQuotas, string> = {
  mcpSessions: 'end one (DELETE /mcp) or let one go idle',
  tasks: 'finish or cancel one first',
  pendingApprovals: 'wait for the operator to decide on some',
};

/** Refuses the next one when `principal` (an agent) already holds `held` of a quota. */
export function assertWithinQuota(quotas: AgentQuotas, principal: Principal, quota: keyof AgentQuotas, held: number): void {
  if (!isAgent(principal) || held < quotas[quota]) return;
  throw new CapstanError('LIMIT_REACHED', `${principal} already holds ${held} ${WHAT[quota]}, its quota (quotas.${quota}); ${NEXT[quota]}`, {
    what: WHAT[quota],
    quota,
    limit: quotas[quota],
  });
}

/** The agent a session belongs to (`agent:<name>` or `agent:<name>/…`), or undefined for the operator's sessions. */
export function agentOfSession(sessionId: string): Principal | undefined {
  if (!isAgent(sessionId)) return undefined;
  const slash = sessionId.indexOf('/');
  return (slash < 0 ? sessionId : sessionId.slice(0, slash)) as Principal;
}
