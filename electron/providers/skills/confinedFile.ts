/**
 * Reads a file from a skills folder only if it is safe to: a regular file (never a FIFO or a
 * device, whose reads can block the event loop for good), no bigger than a limit, and, after
 * every link is resolved, still inside the folder (a link must not bring in a file from
 * elsewhere). Links within the folder are followed.
 *
 * Synchronous, as the database's own reads and writes are: a skill file on a local disk takes a
 * few microseconds to look at and read, where each of the five steps as a promise was a round
 * trip through libuv's thread pool, and 10,000 skills waited 0.7 s longer for those hops than
 * for the disk. The loader reads in slices and yields between them (index.ts), so requests
 * are still served while skills load. Nothing here can block for long: a FIFO or a device is
 * never opened (looked at first, then opened O_NONBLOCK and checked again).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync, type BigIntStats } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';

/** A file that exists but will not be read; the message explains why, for a diagnostic. */
export class RefusedFile extends Error {}

const isInside = (folder: string, path: string) => {
  const rest = relative(folder, path);
  return rest !== '' && rest !== '..' && !rest.startsWith(`..${sep}`) && !isAbsolute(rest);
};

/** A file read from a skills folder: its bytes, its real path, and what it was when opened. */
export interface ConfinedFile {
  bytes: Buffer;
  real: string;
  stats: BigIntStats;
}

/**
 * The bytes of `path`, or null when nothing is there. `realFolder` is the folder's own real
 * path (links resolved). Throws RefusedFile for a file that will not be read; other errors
 * (permissions, I/O) are thrown as they are.
 */
export function readConfinedFile(realFolder: string, path: string, maxBytes: number): Buffer | null {
  return readConfined(realFolder, path, maxBytes)?.bytes ?? null;
}

/**
 * What `path` is, with every check readConfinedFile makes short of opening it: its real path and
 * stats (nanosecond times), or null when nothing is there. Throws as readConfinedFile does.
 *
 * `linkFree`: the caller knows every component of `path` up to its last is a directory, not a
 * link, under `realFolder` (a skills folder's own subfolders, as readdir showed them). Then one
 * lstat says it all when the file itself is no link either: its real path is `path`. That spares
 * a realpath (a lookup per component) and a stat per file, a fifth of loading 10,000 skills.
 * The open that follows checks the file is what was looked at, as it does for any path.
 */
export function lookConfined(realFolder: string, path: string, maxBytes: number, linkFree = false): { real: string; stats: BigIntStats } | null {
  if (linkFree) {
    const found = lstatSync(path, { bigint: true, throwIfNoEntry: false });
    if (!found) return null;
    if (!found.isSymbolicLink()) return checked(path, found, maxBytes);
  }
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    // No file is simply no skill; a link to nothing is a mistake worth naming.
    if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) throw new RefusedFile('is a link to a file that does not exist');
    return null;
  }
  if (!isInside(realFolder, real)) throw new RefusedFile('is a link that leads outside its skills folder; only links within the folder are followed');

  // Look before opening: opening a FIFO blocks until a writer comes, and opening a device can
  // have effects of its own.
  return checked(real, statSync(real, { bigint: true }), maxBytes);
}

function checked(real: string, stats: BigIntStats, maxBytes: number): { real: string; stats: BigIntStats } {
  if (!stats.isFile()) throw new RefusedFile(`is not a regular file (${kindOf(stats)}); only regular files are read`);
  if (stats.size > BigInt(maxBytes)) throw new RefusedFile(tooLarge(stats.size, maxBytes));
  return { real, stats };
}

/** readConfinedFile, also telling the file's real path and its stats as opened. `linkFree` as for lookConfined. */
export function readConfined(realFolder: string, path: string, maxBytes: number, linkFree = false): ConfinedFile | null {
  const looked = lookConfined(realFolder, path, maxBytes, linkFree);
  if (!looked) return null;
  const { real, stats: found } = looked;

  // The file may be swapped between the look and the open: refuse a link in its place
  // (O_NOFOLLOW), never wait on a FIFO (O_NONBLOCK), and check that what was opened is what was
  // looked at. Windows has neither flag; there FIFOs and devices cannot sit in a folder.
  const fd = openSync(real, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  try {
    const opened = fstatSync(fd, { bigint: true });
    if (!opened.isFile() || opened.ino !== found.ino || opened.dev !== found.dev) throw new RefusedFile('changed while it was being read');
    if (opened.size > BigInt(maxBytes)) throw new RefusedFile(tooLarge(opened.size, maxBytes));
    // One byte more than its size, to notice a file that grew after the check. A regular file's
    // read comes back short only at its end, so one read is all a file that did not change needs.
    const buffer = Buffer.alloc(Number(opened.size) + 1);
    let filled = 0;
    for (;;) {
      const wanted = buffer.length - filled;
      const bytesRead = readSync(fd, buffer, filled, wanted, filled);
      filled += bytesRead;
      if (filled === buffer.length) throw new RefusedFile('changed while it was being read');
      if (bytesRead < wanted) break;
    }
    return { bytes: buffer.subarray(0, filled), real, stats: opened };
  } finally {
    closeSync(fd);
  }
}

function kindOf(stats: BigIntStats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a file';
}

const tooLarge = (size: bigint, maxBytes: number) =>
  `is ${size} bytes, more than the ${maxBytes}-byte limit (skills.maxFileBytes in config.json)`;
