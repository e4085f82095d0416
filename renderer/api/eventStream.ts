/**
 * The gateway's live events over HTTP: Server-Sent Events read with fetch, because EventSource
 * cannot send the bearer token. The stream reconnects with backoff when it drops.
 */

export interface SseMessage {
  event: string;
  data: string;
}

/**
 * Splits what has arrived so far into complete SSE blocks (a blank line ends a block). Returns
 * the messages and the unfinished rest, to be prefixed to the next chunk. Comment lines
 * (`: keep-alive`) and blocks without data carry nothing and are dropped.
 */
export function parseSse(buffer: string): { messages: SseMessage[]; rest: string } {
  const blocks = buffer.split(/\r?\n\r?\n/);
  const rest = blocks.pop() ?? '';
  const messages: SseMessage[] = [];
  for (const block of blocks) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      // The spec strips exactly one space after the colon.
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) messages.push({ event, data: data.join('\n') });
  }
  return { messages, rest };
}

/** First retry after half a second, doubling to at most 30 s, so a restarting gateway is found quickly and a dead one is not hammered. */
export function reconnectDelay(attempt: number): number {
  const base = Math.min(30_000, 500 * 2 ** attempt);
  // ±20 % jitter: many windows on one gateway should not reconnect in lockstep.
  return base * (0.8 + Math.random() * 0.4);
}

export interface EventStreamOptions {
  url: string;
  token: string;
  onMessage(message: SseMessage): void;
  /** Called on every successful (re)connection; `reconnected` is true after a drop, when events may have been missed. */
  onOpen?(reconnected: boolean): void;
  /** Called when the stream drops or cannot be opened, before waiting to try again. */
  onDrop?(): void;
  /** Called when the gateway refuses the token: the stream gives up. */
  onRefused?(): void;
}

export interface EventStream {
  /** Closes the stream for good. */
  stop(): void;
  /** Ends the wait before the next attempt, and the backoff: the operator asked to retry now. */
  reconnectNow(): void;
}

/** Opens the stream and keeps it open until it is stopped. */
export function openEventStream({ url, token, onMessage, onOpen, onDrop, onRefused }: EventStreamOptions): EventStream {
  const controller = new AbortController();
  const { signal } = controller;
  let attempt = 0;
  let wake: (() => void) | null = null;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wake = done;
      signal.addEventListener('abort', done, { once: true });
    });

  const run = async () => {
    let everOpened = false;
    while (!signal.aborted) {
      try {
        const response = await fetch(url, {
          headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
          cache: 'no-store',
          signal,
        });
        // A refused token will not fix itself by asking again; the page shows why elsewhere.
        if (response.status === 401) {
          onRefused?.();
          return;
        }
        if (response.ok && response.body) {
          onOpen?.(everOpened);
          everOpened = true;
          attempt = 0;
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            const parsed = parseSse(buffer + value);
            buffer = parsed.rest;
            for (const message of parsed.messages) onMessage(message);
          }
        }
      } catch {
        // Dropped or refused: retry below, unless we were asked to stop.
      }
      if (signal.aborted) return;
      onDrop?.();
      await sleep(reconnectDelay(attempt++));
    }
  };
  void run();
  return {
    stop: () => controller.abort(),
    reconnectNow: () => {
      attempt = 0;
      wake?.();
    },
  };
}
