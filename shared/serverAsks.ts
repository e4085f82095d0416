/**
 * What an MCP server asks of the person at the console while one of its tools runs: to fill a
 * form or visit a URL (`elicitation/create`), or to write the model's reply (`sampling/createMessage`:
 * no model is ever called; the operator answers by hand or refuses). Capstan never answers for a
 * person. An ask during an agent's call waits in Approvals beside the agent's calls, with the
 * same timeout and withdrawal rules (it expires after `approvals.timeoutMs`; it is withdrawn when
 * its call ends or the server takes it back); an ask during the operator's own call is a dialog
 * while the call waits. `GET /asks` lists them, `POST /asks/<id>` answers one, every change is an
 * `ask` event, and each ask and its end are ledger entries (`server_asked`, `server_answered`)
 * with the content as a keyed digest, never its values.
 */
import { z } from 'zod';

export const AskKind = z.enum(['elicitation', 'sampling']);
export type AskKind = z.infer<typeof AskKind>;

/** `pending` until answered (accepted, declined, cancelled), expired or withdrawn. */
export const AskStatus = z.enum(['pending', 'accepted', 'declined', 'cancelled', 'expired', 'withdrawn']);
export type AskStatus = z.infer<typeof AskStatus>;

/** A sampling request as the operator reads it: the conversation so far and what the server wants. */
export const SamplingAsk = z.object({
  messages: z.array(z.object({ role: z.string(), content: z.unknown() })),
  systemPrompt: z.string().nullable(),
  maxTokens: z.number().nullable(),
  /** The model the server would like (its hints), for the operator's information. */
  modelHints: z.array(z.string()),
});
export type SamplingAsk = z.infer<typeof SamplingAsk>;

export const ServerAskView = z.object({
  id: z.string(),
  /** The MCP server asking. */
  server: z.string(),
  kind: AskKind,
  /** The call it came during (null: Capstan could not tell which, several calls to the server were running). */
  requestId: z.string().nullable(),
  /** Whose call: `operator`, or `agent:<name>`; an agent's ask is shown in Approvals. */
  principal: z.string(),
  taskId: z.string().nullable(),
  capability: z.string().nullable(),
  /** The server's words to the person. */
  message: z.string(),
  /** Elicitation: `form` (fill `requestedSchema`) or `url` (visit `url`). */
  mode: z.enum(['form', 'url']).nullable(),
  requestedSchema: z.record(z.string(), z.unknown()).nullable(),
  url: z.string().nullable(),
  sampling: SamplingAsk.nullable(),
  status: AskStatus,
  requestedAt: z.string(),
  expiresAt: z.string(),
  ageMs: z.number().int().nonnegative(),
  answeredAt: z.string().nullable(),
  /** Why it ended without an answer (expired, withdrawn). */
  reason: z.string().nullable(),
});
export type ServerAskView = z.infer<typeof ServerAskView>;

export const ServerAsksView = z.object({
  /** Oldest first. */
  pending: z.array(ServerAskView),
  /** The latest that ended, newest first (the last 50, in memory). */
  recent: z.array(ServerAskView),
  timeoutMs: z.number().int(),
});
export type ServerAsksView = z.infer<typeof ServerAsksView>;

const ContentValue = z.union([z.string().max(100_000), z.number(), z.boolean(), z.array(z.string().max(10_000)).max(1000)]);

/**
 * The operator's answer. Elicitation: `accept` with `content` (form mode; checked against the
 * requested schema, its defaults applied), `decline` or `cancel`. Sampling: `accept` with `reply`
 * (the text the server gets as the model's message), or `decline` (refused).
 */
export const AnswerAskInput = z.strictObject({
  id: z.string().min(1).max(100),
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string().max(200), ContentValue).optional(),
  reply: z.string().max(100_000).optional(),
  /**
   * With `accept` on a URL elicitation: the gateway opens the page itself (the desktop app, whose
   * window opens no pages, in the system browser), the ask's own URL, never one the client sends.
   */
  open: z.boolean().optional(),
});
export type AnswerAskInput = z.infer<typeof AnswerAskInput>;

/** A change of one ask, for the console's dialog and Approvals. */
export const AskChanged = z.object({ type: z.literal('ask'), ask: ServerAskView });
