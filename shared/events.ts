/**
 * Live events from the gateway: Server-Sent Events on `GET /events` over HTTP, the
 * `capstan:event` channel over IPC. Clients refresh what an event says has changed.
 */
import { z } from 'zod';
import { ApprovalView } from './approvals';
import { CatalogEntry, Diagnostic, ProviderInfo } from './capability';
import { HarnRunSummary, HarnUpdate } from './harn';
import { LedgerEntry } from './ledger';
import { ResourceUpdated } from './resources';
import { AskChanged } from './serverAsks';
import { ServerLogAppended } from './serverLog';
import { TaskView } from './tasks';

/**
 * What one catalog change did to the operator's view (`GET /catalog`), small enough to apply in
 * place rather than read the whole view again (10,000 skills are ~7 MB).
 *
 * It applies to the view at generation `from` (shared/catalogDelta.ts applies it): a client
 * holding another generation missed a change and re-reads `GET /catalog`, with `If-None-Match`.
 * A change that leaves the generation as it was (a provider's status, diagnostics) has `from`
 * equal to the event's `catalogGeneration`.
 */
export const CatalogDelta = z.object({
  from: z.number().int().nonnegative(),
  /** Capabilities new to the view, or whose contract or revoked flag changed, as `GET /catalog` lists them. */
  upserted: z.array(CatalogEntry),
  /** Ids of capabilities that left the view (gone from their provider, or their provider disabled or unbound). */
  removed: z.array(z.string()),
  /**
   * Every provider, as `GET /catalog` lists them. A capability carries its provider's
   * `bindingGeneration`: one not in `upserted` takes it from here.
   */
  providers: z.array(ProviderInfo),
  /** The diagnostics of each provider whose diagnostics changed (an empty list: it has none now). */
  diagnostics: z.array(z.object({ provider: z.string(), diagnostics: z.array(Diagnostic) })),
  /** Providers still reading their first contents, as `GET /catalog` says. */
  loading: z.array(z.string()).optional(),
  /** The view's entity tag after the change: the ETag `GET /catalog` answers with, for `If-None-Match`. */
  tag: z.string(),
});
export type CatalogDelta = z.infer<typeof CatalogDelta>;

/**
 * The catalog changed: its new generation, which provider and why, and the change itself. `delta`
 * is null when too much changed to carry (a provider's first load, thousands of skills): a client
 * then re-reads `GET /catalog`.
 */
export const CatalogChanged = z.object({
  type: z.literal('catalog'),
  catalogGeneration: z.number().int(),
  provider: z.string(),
  reason: z.enum(['loaded', 'changed', 'diagnostics', 'enabled', 'disabled', 'revoked', 'restored', 'status']),
  delta: CatalogDelta.nullable(),
});
export type CatalogChanged = z.infer<typeof CatalogChanged>;

/** A new ledger entry; over SSE its `id:` is the entry's sequence number, for Last-Event-ID. */
export const LedgerAppended = z.object({ type: z.literal('ledger'), entry: LedgerEntry });
/** A task's new state (its transitions are also ledger entries). */
export const TaskChanged = z.object({ type: z.literal('task'), task: TaskView });

/** A running call's progress, as its tool (an MCP server) reports it; for the console's running-call view. */
export const CallProgress = z.object({
  type: z.literal('progress'),
  requestId: z.string(),
  taskId: z.string(),
  progress: z.number(),
  total: z.number().nullable(),
  message: z.string().nullable(),
  /** When the call started and when its deadline falls (moved by progress where the tool allows it). */
  startedAt: z.string(),
  deadlineAt: z.string(),
});

/** An approval asked for, decided, expired or withdrawn (shared/approvals.ts): the console's queue follows these. */
export const ApprovalChanged = z.object({ type: z.literal('approval'), approval: ApprovalView });

/**
 * A Harn run's summary and its new or changed lines (shared/harn.ts). `skipped` lines changed
 * too but are not in this event (a burst): a client that shows the run reads it again.
 */
export const HarnRunChanged = z.object({ type: z.literal('harn'), run: HarnRunSummary, updates: z.array(HarnUpdate), skipped: z.number().int().nonnegative() });

/**
 * Recent executions changed (shared/executions.ts): read `GET /executions?after=` a known
 * revision; `cleared` says every run before this one is gone. No values ride on the stream.
 */
export const ExecutionsChanged = z.object({ type: z.literal('executions'), revision: z.number().int().nonnegative(), cleared: z.boolean() });

export const CapstanEvent = z.discriminatedUnion('type', [CatalogChanged, LedgerAppended, TaskChanged, CallProgress, ApprovalChanged, HarnRunChanged, ExecutionsChanged, ServerLogAppended, ResourceUpdated, AskChanged]);
export type CapstanEvent = z.infer<typeof CapstanEvent>;

/** Where HTTP clients read the event stream (IPC uses IPC_EVENT_CHANNEL from ipc.ts). */
export const EVENTS_PATH = '/events';
