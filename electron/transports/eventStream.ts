/**
 * `GET /events`: Server-Sent Events for every live client, bounded so a slow or hostile client
 * cannot hold memory or the event loop. How a stream resumes, replays and stays exactly-once
 * is explained above `streamEvents`.
 */
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CapstanError } from '../../shared/errors';
import type { CapstanEvent } from '../../shared/events';
import type { LedgerEntry } from '../../shared/ledger';
import type { EventBus } from '../services/events';
import type { Ledger } from '../runtime/ledger';

/**
 * The most `GET /events` streams served at once; one more is refused with TOO_MANY_STREAMS. A
 * console window holds one, so this leaves room for many windows, CLIs and agents, while a
 * client opening streams in a loop cannot pile up subscribers. A constant, not a setting.
 */
export const MAX_EVENT_STREAMS = 32;
/** A stream with more unsent bytes than this is dropped: its client is not reading. It catches up with Last-Event-ID on reconnecting. */
export const STREAM_BUFFER_LIMIT_BYTES = 1024 * 1024;
/** A replaying stream whose client takes no bytes for this long is dropped the same way. */
const STREAM_STALL_MS = 30_000;
/** Ledger entries read per query while a stream catches up. */
const REPLAY_PAGE = 500;

/**
 * Server-Sent Events: one `event:`/`data:` block per event, and a comment now and then so idle
 * connections stay open. Ledger entries carry their sequence number as `id:`, so a client that
 * reconnects with `Last-Event-ID` (or `?after=`) first gets every entry it missed.
 *
 * Each ledger entry goes out exactly once and in `seq` order, replayed or live. The stream
 * subscribes first, then replays from the database in pages, yielding to the event loop between
 * pages and waiting for the socket to drain, so a long catch-up neither blocks other requests nor
 * piles up in memory. While it replays, live ledger events are dropped rather than queued: an
 * entry is announced only once committed, so a later page reads it back in its place. The replay
 * ends in the same synchronous step that finds nothing left up to `ledger.lastSeq`; nothing can be
 * appended between that check and the switch to live, and every entry appended after it is
 * announced after it, with a `seq` past `sentSeq`. Task and catalog events carry whole views that
 * clients keep by version, so they go out as they come, during a replay too.
 *
 * A page reads no further than the `lastSeq` that `durable()` was awaited for: this connection
 * sees the open group-commit batch before it commits, and a client must not hear of an entry the
 * database may still lose.
 *
 * A client that does not read is dropped once STREAM_BUFFER_LIMIT_BYTES wait for it (live), or
 * once it takes nothing for STREAM_STALL_MS (replaying), instead of being buffered without end.
 */
export function streamEvents(request: FastifyRequest, reply: FastifyReply, events: EventBus, ledger: Ledger): void {
  let sentSeq = resumePoint(request, ledger.lastSeq);
  let replaying = true;
  reply.hijack();
  const stream = reply.raw;
  stream.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-request-id': request.requestId,
    'x-content-type-options': 'nosniff',
  });
  const write = (chunk: string) => {
    if (stream.destroyed) return;
    stream.write(chunk);
    if (stream.writableLength > STREAM_BUFFER_LIMIT_BYTES) drop('its client is not reading');
  };
  const drop = (why: string) => {
    request.log.info({ unsent: stream.writableLength, sentSeq }, `event stream dropped: ${why}`);
    stream.destroy();
  };
  const sendEntry = (entry: LedgerEntry) => {
    sentSeq = entry.seq;
    write(`id: ${entry.seq}\nevent: ledger\ndata: ${JSON.stringify({ type: 'ledger', entry })}\n\n`);
  };
  const unsubscribe = events.subscribe((event: CapstanEvent) => {
    if (event.type !== 'ledger') write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    else if (!replaying && event.entry.seq > sentSeq) sendEntry(event.entry);
  });
  const heartbeat = setInterval(() => write(': keep-alive\n\n'), SSE_HEARTBEAT_MS);
  stream.once('close', () => {
    unsubscribe();
    clearInterval(heartbeat);
  });
  write(': capstan events\n\n');

  const replay = async () => {
    for (;;) {
      const frontier = ledger.lastSeq;
      if (sentSeq >= frontier) break;
      await ledger.durable();
      const page = ledger.query({ after: sentSeq, limit: REPLAY_PAGE }).filter((entry) => entry.seq <= frontier);
      // Entries appended but gone (a batch rolled back as the database closed): nothing more to replay.
      if (page.length === 0) break;
      for (const entry of page) {
        if (stream.destroyed) return;
        sendEntry(entry);
        if (stream.writableNeedDrain && !(await drained(stream))) return drop(`its client took nothing for ${STREAM_STALL_MS / 1000} s`);
      }
      await nextTurn();
    }
    replaying = false;
  };
  replay().catch((error: unknown) => {
    request.log.error({ err: error }, 'event stream replay failed');
    stream.destroy();
  });
}

const SSE_HEARTBEAT_MS = 15_000;

/** Where a stream starts: after the client's `Last-Event-ID` (or `?after=`), else after the newest entry. */
function resumePoint(request: FastifyRequest, lastSeq: number): number {
  const given = request.headers['last-event-id'] ?? (request.query as { after?: unknown }).after;
  if (given === undefined) return lastSeq;
  if (typeof given !== 'string' || !/^\d{1,15}$/.test(given)) {
    throw new CapstanError('BAD_REQUEST', 'Last-Event-ID and ?after= take a ledger sequence number');
  }
  // An id from another ledger (a fresh data dir) must not hold back this one's entries.
  return Math.min(Number(given), lastSeq);
}

/** Resolves true once the stream can take more, false when it took nothing for STREAM_STALL_MS; or when it closed. */
function drained(stream: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (ok: boolean) => {
      clearTimeout(timer);
      stream.off('drain', onDrain).off('close', onDrain);
      resolve(ok);
    };
    const onDrain = () => settle(true);
    const timer = setTimeout(() => settle(false), STREAM_STALL_MS);
    stream.once('drain', onDrain).once('close', onDrain);
  });
}
