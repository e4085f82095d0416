/** Agent tokens as the operator manages them: `GET/POST/DELETE /agents`, `capstan token`. */
import { z } from 'zod';
import { AgentName } from './principal';

export const AgentView = z.object({
  name: z.string(),
  /** The principal its entries name in the ledger: `agent:<name>`. */
  principal: z.string(),
  createdAt: z.string(),
  /** When the token last authenticated a request (kept to the minute), null if never. */
  lastUsedAt: z.string().nullable(),
});
export type AgentView = z.infer<typeof AgentView>;

export const AgentsView = z.object({ agents: z.array(AgentView) });
export type AgentsView = z.infer<typeof AgentsView>;

export const CreateAgentInput = z.strictObject({ name: AgentName });
/** The token is shown this once: only its SHA-256 is kept. */
export const CreatedAgent = z.object({ agent: AgentView, token: z.string() });
export type CreatedAgent = z.infer<typeof CreatedAgent>;

export const AgentNameInput = z.strictObject({ name: z.string().min(1).max(128) });
