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

/** A local date and wall-clock time with milliseconds (`2026-11-30 14:10:28.123`): ledger entries outlive the day they were written. */
export function dateClockTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${clockTime(iso)}`;
}

/** Characters of an id always shown in full at its end: 32 bits of a UUID tell a screen of rows apart. */
export const ID_TAIL = 8;

/**
 * An id cut into the part that may be shortened and the tail that tells it apart. Ids share
 * their start (`tool-registry-…`, `task-…`) and differ at the end, so a narrow cell shortens
 * the start (CSS ellipsis) and keeps the tail. The two parts together are the whole id, so
 * selecting and copying the cell copies all of it.
 */
export function idParts(id: string, tail = ID_TAIL): { head: string; tail: string } {
  if (id.length <= tail * 2) return { head: id, tail: '' };
  return { head: id.slice(0, -tail), tail: id.slice(-tail) };
}

/**
 * A duration as the console writes it wherever a call's time appears (its card, its ledger
 * entry), so the same figure reads the same: one function, shared with the CLI.
 */
export { formatDuration } from '../../shared/ledgerSummary';
