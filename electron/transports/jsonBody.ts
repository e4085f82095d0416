/**
 * A large answer's JSON, written as the socket takes it instead of built whole first. The
 * operator's catalog of 10,000 skills is about 8 MB of JSON: made in one piece, it cost the
 * process that string, the parts JSON.stringify joined to make it and the copy of what the
 * socket had not taken yet (about 35 MB more RSS for a while after each read). Streamed, an
 * answer costs one batch of items at a time.
 *
 * The bytes are exactly JSON.stringify's (same keys, order and omissions), so a client cannot
 * tell; only the framing differs (chunked, without Content-Length).
 */
import { Readable } from 'node:stream';

/** An array longer than this, at the answer's top level, is written in batches. */
const STREAM_ITEMS = 1_000;
/** Items serialized at once; a batch of catalog entries is about 200 KB. */
const BATCH_ITEMS = 64;

/** `value` itself when it is small enough to send as it is, else a stream of its JSON. */
export function jsonBody(value: unknown): unknown {
  if (!isPlainObject(value) || !Object.values(value).some((field) => Array.isArray(field) && field.length > STREAM_ITEMS)) return value;
  return Readable.from(jsonChunks(value), { objectMode: false });
}

function* jsonChunks(value: Record<string, unknown>): Generator<string> {
  let first = true;
  yield '{';
  for (const [key, field] of Object.entries(value)) {
    const head = `${first ? '' : ','}${JSON.stringify(key)}:`;
    if (Array.isArray(field) && field.length > STREAM_ITEMS) {
      first = false;
      yield `${head}[`;
      for (let start = 0; start < field.length; start += BATCH_ITEMS) {
        // Each batch as an array, without its brackets; undefined items become null, as in any array.
        const batch = JSON.stringify(field.slice(start, start + BATCH_ITEMS));
        yield `${start === 0 ? '' : ','}${batch.slice(1, -1)}`;
      }
      yield ']';
      continue;
    }
    const json = JSON.stringify(field);
    // A field JSON.stringify leaves out (undefined, a function) is left out here too.
    if (json === undefined) continue;
    first = false;
    yield `${head}${json}`;
  }
  yield '}';
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
