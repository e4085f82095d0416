/**
 * The protocol view: the last JSON-RPC messages between Capstan and one MCP server, both ways,
 * as MCP Inspector's history shows them, and linked to Capstan's own records: a message that
 * belongs to a call carries the call's requestId (sent in the request's `_meta`, matched for its
 * response, its progress and its cancellation), so the ledger entry and the wire meet.
 * Known secret values of the server's entry are masked; headers and environment are never shown.
 */
import { z } from 'zod';

/** The most messages kept per server. */
export const PROTOCOL_LOG_MESSAGES = 500;
/** A message's JSON is kept up to this many characters (cut with `…`); `size` is its whole size. */
export const PROTOCOL_MESSAGE_CHARS = 16_000;

export const ProtocolMessage = z.object({
  seq: z.number().int().positive(),
  at: z.string(),
  /** `out`: Capstan to the server; `in`: the server to Capstan. */
  direction: z.enum(['out', 'in']),
  kind: z.enum(['request', 'response', 'error', 'notification']),
  /** The method (for a response or error: its request's method). */
  method: z.string().nullable(),
  /** The JSON-RPC id, for requests, responses and errors. */
  id: z.union([z.string(), z.number()]).nullable(),
  /** Bytes of JSON. */
  size: z.number().int().nonnegative(),
  /** For a response or error: how long after its request it came. */
  durationMs: z.number().nonnegative().nullable(),
  /** The Capstan requestId of the call this message belongs to, when it belongs to one. */
  requestId: z.string().nullable(),
  /** The message as JSON text (secrets masked, cut at PROTOCOL_MESSAGE_CHARS). */
  json: z.string(),
});
export type ProtocolMessage = z.infer<typeof ProtocolMessage>;

export const ProtocolLogQuery = z.strictObject({
  name: z.string().min(1).max(128),
  /** Words that must all appear in the message's method or JSON (case-insensitive). */
  q: z.string().max(200).optional(),
  /** Only the messages of this call. */
  requestId: z.string().max(1024).optional(),
  limit: z.coerce.number().int().min(1).max(PROTOCOL_LOG_MESSAGES).optional(),
});
export type ProtocolLogQuery = z.input<typeof ProtocolLogQuery>;

export const ProtocolLogView = z.object({
  server: z.string(),
  /** Oldest first. */
  messages: z.array(ProtocolMessage),
  /** Messages dropped because more than PROTOCOL_LOG_MESSAGES passed. */
  dropped: z.number().int().nonnegative(),
});
export type ProtocolLogView = z.infer<typeof ProtocolLogView>;
