/**
 * Who an operation runs for. Every ledger entry names one:
 * - `operator`: the console (IPC, always) and whoever holds the gateway's own token (console in a
 *   browser, curl, the CLI); every right.
 * - `agent:<name>`: a holder of an agent token (`capstan token create --name <name>`); it may
 *   discover and call in its own sessions, never confirm, approve or change anything.
 * - `system`: entries the gateway writes by itself, outside any request (restart recovery).
 */
import { z } from 'zod';
import { CAPABILITY_NAME_PATTERN } from './capability';

export const OPERATOR = 'operator';
export const SYSTEM = 'system';
export type AgentPrincipal = `agent:${string}`;
export type Principal = typeof OPERATOR | typeof SYSTEM | AgentPrincipal;

/**
 * Agent names use the capability-name characters, at most 64 of them: an agent's session ids
 * (`agent:<name>/mcp-<22 characters>`) must stay within the 128 characters every session id may have.
 */
export const AGENT_NAME_MAX = 64;
export const AgentName = z
  .string()
  .max(AGENT_NAME_MAX, `must be 1-${AGENT_NAME_MAX} of [A-Za-z0-9_.-]`)
  .regex(CAPABILITY_NAME_PATTERN, `must be 1-${AGENT_NAME_MAX} of [A-Za-z0-9_.-]`);

export const agentPrincipal = (name: string): AgentPrincipal => `agent:${name}`;
export const isAgent = (principal: string | null | undefined): principal is AgentPrincipal => principal?.startsWith('agent:') === true;
/** The agent's name, or undefined for the operator and the system. */
export const agentNameOf = (principal: string | null | undefined): string | undefined => (isAgent(principal) ? principal.slice('agent:'.length) : undefined);
