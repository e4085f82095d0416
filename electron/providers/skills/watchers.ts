/**
 * How the skills provider hears of edits: the watchers of its directories and their folders, and
 * what they heard since the last load (index.ts reads again only that).
 */
import { existsSync, statSync, watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, sep } from 'node:path';

/** Editors save in bursts (temp file, rename, chmod); wait for the burst to settle. */
const WATCH_SETTLE_MS = 150;
/** A folder that never settles (saved every 100 ms) is still reloaded at least this often. */
const WATCH_MAX_WAIT_MS = 1_000;
/**
 * How often a skills directory is looked for, when it is missing or may have been replaced: a
 * watcher follows the directory it was set on, not its path, and cannot see one made there later.
 */
const DIR_CHECK_MS = 2_000;

/** What the watchers heard since the last load: the folders (`<dir>/<folder>`) to look at again, or everything. */
export interface Changed {
  all: boolean;
  folders: ReadonlySet<string>;
}

/**
 * One non-recursive watcher per skills directory (folders added, removed, renamed) and one per
 * skill folder (its SKILL.md edited), as skills live at `<dir>/<folder>/SKILL.md`. Node's
 * recursive watch does the same on Linux, but with a synchronous readdir of every folder at once:
 * 10,000 skills blocked the event loop for seconds. Here a folder is watched as the load reaches
 * it, and folders are followed as they come and go. A file deeper in a folder (a link target in a
 * subfolder) is not watched: its edits show with the next reload.
 */
export class SkillWatchers {
  readonly #watchers = new Map<string, FSWatcher>();
  #started = false;
  #stopped = false;
  #onChange: (() => void) | undefined;
  /** Something changed before anyone listened (during the first load): told when they do. */
  #pending = false;
  #timer: NodeJS.Timeout | undefined;
  /** When the burst being waited out began: it is not waited out past WATCH_MAX_WAIT_MS. */
  #burstStart: number | undefined;
  /** Folders (`<dir>/<folder>`) heard from since the last load, or everything. */
  #changed = new Set<string>();
  #all = false;
  /** Each directory's identity (identityOf) as watched; undefined while it is missing. */
  readonly #dirIdentity = new Map<string, string | undefined>();
  #dirCheck: NodeJS.Timeout | undefined;

  /** Why a directory is no longer watched, by directory: reported with the next load. */
  readonly problems = new Map<string, string>();

  constructor(readonly dirs: readonly string[]) {}

  start(): void {
    if (this.#started) return;
    this.#started = true;
    for (const dir of this.dirs) this.#watchDir(dir);
    if (this.dirs.length > 0) {
      this.#dirCheck = setInterval(() => this.#checkDirs(), DIR_CHECK_MS);
      this.#dirCheck.unref();
    }
  }

  /** Watches `<dir>/<folder>` if it is not yet. */
  folder(dir: string, folder: string): void {
    const path = join(dir, folder);
    this.#watch(dir, path, () => this.#heard(path));
  }

  /**
   * What was heard since the last call, for a load to look at again. A load nobody heard a reason
   * for (the first, or one the catalog asked for on its own) looks at everything.
   */
  takeChanged(): Changed {
    const changed = { all: this.#all || this.#changed.size === 0, folders: this.#changed };
    this.#changed = new Set();
    this.#all = false;
    return changed;
  }

  listen(onChange: () => void): () => void {
    this.#onChange = onChange;
    if (this.#pending) this.#settle();
    return () => {
      this.#stopped = true;
      clearTimeout(this.#timer);
      clearInterval(this.#dirCheck);
      for (const watcher of this.#watchers.values()) watcher.close();
      this.#watchers.clear();
    };
  }

  #heard(folder: string | null): void {
    if (folder === null) this.#all = true;
    else this.#changed.add(folder);
    this.#settle();
  }

  /**
   * Editors save in bursts (temp file, rename, chmod): one reload when the burst settles, and at
   * least one every WATCH_MAX_WAIT_MS while a folder keeps changing.
   */
  #settle(): void {
    if (!this.#onChange) {
      this.#pending = true;
      return;
    }
    const now = Date.now();
    this.#burstStart ??= now;
    clearTimeout(this.#timer);
    const wait = Math.max(0, Math.min(WATCH_SETTLE_MS, this.#burstStart + WATCH_MAX_WAIT_MS - now));
    this.#timer = setTimeout(() => {
      this.#burstStart = undefined;
      this.#onChange?.();
    }, wait);
  }

  #unwatched(dir: string, error: unknown): void {
    this.problems.set(dir, `is no longer watched (${(error as Error).message}): edits to it show after a restart`);
    this.#heard(null);
  }

  #watch(dir: string, path: string, listener: (event: string, name: string | null) => void): void {
    if (this.#stopped || this.#watchers.has(path)) return;
    try {
      const watcher = watch(path, { persistent: false }, listener);
      watcher.on('error', (error) => {
        // A folder's watcher fails when the folder goes, and the directory's when it is removed
        // (#checkDirs follows it then); only a watcher failing on what is still there is a problem.
        if (existsSync(path)) this.#unwatched(dir, error);
        this.#forget(path);
      });
      this.#watchers.set(path, watcher);
    } catch (error) {
      // Missing: a folder removed meanwhile, or a directory whose diagnostic is the load's.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#unwatched(dir, error);
    }
  }

  #watchDir(dir: string): void {
    this.#dirIdentity.set(dir, identityOf(dir));
    this.#watch(dir, dir, (_event, name) => this.#folderEvent(dir, name));
  }

  /**
   * A directory that was missing and is there now, or was removed (and perhaps made again): its
   * old watchers see nothing of the new one, so they go, it is watched afresh, and everything is
   * read again (a load sets its folders' watchers as it reaches them).
   */
  #checkDirs(): void {
    for (const dir of this.dirs) {
      const now = identityOf(dir);
      if (now === this.#dirIdentity.get(dir)) continue;
      // Watchers are keyed by join(dir, …), which normalizes: so is the prefix, whatever the spelling of `dir`.
      const under = join(dir, sep);
      for (const path of [...this.#watchers.keys()]) if (path === dir || path.startsWith(under)) this.#forget(path);
      this.problems.delete(dir);
      if (now === undefined) this.#dirIdentity.set(dir, undefined);
      else this.#watchDir(dir);
      this.#heard(null);
    }
  }

  #forget(path: string): void {
    this.#watchers.get(path)?.close();
    this.#watchers.delete(path);
  }

  /** An entry of a skills directory appeared or went: reload, and follow a new folder. */
  #folderEvent(dir: string, name: string | null): void {
    if (!name) {
      this.#heard(null);
      return;
    }
    const path = join(dir, name);
    this.#heard(path);
    void stat(path).then(
      (found) => (found.isDirectory() ? this.folder(dir, name) : this.#forget(path)),
      () => this.#forget(path),
    );
  }
}

/**
 * A directory's device, inode and birth time, or undefined when there is none at `path`. The
 * birth time tells a directory made again from the one removed: the file system hands the new one
 * the freed inode at once. (Where it records none, Node gives 0, and the inode alone is compared.)
 */
function identityOf(path: string): string | undefined {
  try {
    const found = statSync(path, { throwIfNoEntry: false, bigint: true });
    return found?.isDirectory() ? `${found.dev}:${found.ino}:${found.birthtimeNs}` : undefined;
  } catch (error) {
    // Unreadable (a permission, a link loop): the load names why; this only notices when that changes.
    return `unreadable: ${(error as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}
