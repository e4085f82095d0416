/** How ids, digests and times read in dense views; the full value always stays a hover or a click away. */

/** The first characters of a hash or digest: enough to tell entries apart at a glance. */
export const shortHash = (hash: string, length = 10) => (hash.length > length ? `${hash.slice(0, length)}…` : hash);

/** A task id without most of its UUID (`task-1a2b3c4d…`). */
export const shortTaskId = (id: string) => (id.length > 13 ? `${id.slice(0, 13)}…` : id);

/** A local wall-clock time with milliseconds: ledger entries come many a second. */
export function clockTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** A local date and time for things that may be hours old. */
export const dateTime = (iso: string) => new Date(iso).toLocaleString();
