/**
 * The skills provider: folders of `<name>/SKILL.md` under each skills directory. Skill files are
 * untrusted: each is read with the checks in confinedFile.ts and parsed within limits, and any
 * problem with one file, or with watching a directory, is a diagnostic naming it. One bad file
 * never stops the start nor keeps the other skills from loading and updating.
 */
import { createHash } from 'node:crypto';
import { existsSync, statSync, watch, type BigIntStats, type FSWatcher } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { CapstanError } from '../../../shared/errors';
import type { Provider, ProviderContents, SkillBody, SkillSource } from '../../catalog/provider';
import { DEFAULT_SKILL_MAX_FILE_BYTES } from '../../config';
import { lookConfined, readConfined, readConfinedFile, RefusedFile } from './confinedFile';
import { parseSkillFile, readSkillBody, SKILL_FILE } from './skillFile';

export const SKILLS_PROVIDER = 'skills';
/** Editors save in bursts (temp file, rename, chmod); wait for the burst to settle. */
const WATCH_SETTLE_MS = 150;
/** A folder that never settles (saved every 100 ms) is still reloaded at least this often. */
const WATCH_MAX_WAIT_MS = 1_000;
/**
 * How often a skills directory is looked for, when it is missing or may have been replaced: a
 * watcher follows the directory it was set on, not its path, and cannot see one made there later.
 */
const DIR_CHECK_MS = 2_000;
/**
 * A file modified this close to the moment it was read may have changed again within the same
 * tick of its file system's clock (a second on some), leaving its stats as they were: such a
 * file is read again, and parsed only if its bytes differ, on its next check.
 */
const RACY_MS = 2_000n;

type ProviderDiagnostic = ProviderContents['diagnostics'][number];

/** Told the path of every SKILL.md the provider parses: tests count re-parses with it. */
export const skillParses: { listener: ((path: string) => void) | null } = { listener: null };

export interface SkillsOptions {
  /** config.json's `skills.maxFileBytes`: bigger SKILL.md files are refused. */
  maxFileBytes?: number;
}

export function skillsProvider(dirs: readonly string[], { maxFileBytes = DEFAULT_SKILL_MAX_FILE_BYTES }: SkillsOptions = {}): Provider {
  // Watching problems are reported with the next load, beside the files' own.
  const watchProblems = new Map<string, ProviderDiagnostic>();
  const watchers = new SkillWatchers(dirs, watchProblems);
  const cache: SkillCache = new Map();
  return {
    name: SKILLS_PROVIDER,
    kind: 'skills',
    load: async () => {
      // Watching starts with the first load and each folder is watched before it is read, so an
      // edit made while 10,000 files are read is not lost between the read and the watch.
      watchers.start();
      const changed = watchers.takeChanged();
      const contents = await loadSkills(dirs, maxFileBytes, cache, changed, (dir, folder) => watchers.folder(dir, folder));
      return { ...contents, diagnostics: [...contents.diagnostics, ...watchProblems.values()] };
    },
    watch: (onChange) => watchers.listen(onChange),
  };
}

const problem = (path: string, reason: string, capability: string | null = null, line: number | null = null): ProviderDiagnostic => ({
  path,
  line,
  capability: capability === null ? null : `${SKILLS_PROVIDER}:${capability}`,
  reason,
});

const reasonOf = (error: unknown) => (error instanceof RefusedFile ? error.message : `could not be read: ${(error as Error).message}`);

/**
 * How long the loader reads skill files before it lets the event loop serve what is waiting
 * (files are read synchronously: confinedFile.ts says why). 10,000 skills take about half a
 * second to read and parse, in slices no longer than this.
 */
const SLICE_MS = 8;

type FolderResult = { skill: Omit<SkillSource, 'readBody'> } | { diagnostic: ProviderDiagnostic } | null;

/**
 * What each skill folder gave at its last read, by `<dir>/<folder>`. A reload reuses it for the
 * folders nothing was heard from, and parses a file again only when its bytes changed: saving one
 * skill among 200 of 8 KiB each had every reload parse all 200, 0.6 s of work on every save.
 */
type SkillCache = Map<string, CachedFolder>;

interface CachedFolder {
  result: FolderResult;
  /** The file's identity and times when read (path, device, inode, size, mtime, ctime); null when none was read. */
  stamp: string | null;
  /** The sha256 of the bytes parsed, so a file whose stats moved but bytes did not is not parsed again. */
  hash: string | null;
  /** Modified just before it was read: its stats are not trusted to show a later change. */
  racy: boolean;
  /**
   * Looked at on every reload, heard from or not: SKILL.md is a link (its target may sit in a
   * subfolder nobody watches), or it was refused or could not be read. Both cost no parse.
   */
  recheck: boolean;
}

/** What the watchers heard since the last load: the folders (`<dir>/<folder>`) to look at again, or everything. */
interface Changed {
  all: boolean;
  folders: ReadonlySet<string>;
}

// Joined, not a template: a template literal leaves a tree of ten string pieces per stamp, which
// 10,000 cached skills kept (3 MB); join makes one flat string.
const stampOf = (real: string, stats: BigIntStats) => [real, stats.dev, stats.ino, stats.size, stats.mtimeNs, stats.ctimeNs].join('\0');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function loadSkills(
  dirs: readonly string[],
  maxFileBytes: number,
  cache: SkillCache,
  changed: Changed,
  beforeRead: (dir: string, folder: string) => void,
): Promise<ProviderContents> {
  const skills: SkillSource[] = [];
  const diagnostics: ProviderDiagnostic[] = [];
  const firstPath = new Map<string, string>();
  const seen = new Set<string>();
  for (const dir of dirs) {
    let realDir: string;
    let folders: string[];
    /** Subfolders that are directories, not links: their SKILL.md needs no realpath (confinedFile.ts). */
    const plainFolders = new Set<string>();
    try {
      realDir = await realpath(dir);
      const entries = (await readdir(realDir, { withFileTypes: true })).filter((entry) => entry.isDirectory() || entry.isSymbolicLink());
      for (const entry of entries) if (entry.isDirectory()) plainFolders.add(entry.name);
      folders = entries.map((entry) => entry.name).sort();
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      diagnostics.push(problem(dir, missing ? 'skills directory does not exist' : `skills directory ${reasonOf(error)}`));
      continue;
    }
    const readFolder = (folder: string): FolderResult => {
      const key = join(dir, folder);
      seen.add(key);
      beforeRead(dir, folder);
      const cached = cache.get(key);
      const heardOf = changed.all || changed.folders.has(key);
      // Nothing heard from this folder: what it gave last time stands.
      if (cached && !heardOf && !cached.recheck) return cached.result;
      const entry = readSkillFolder(realDir, dir, folder, maxFileBytes, cached, !heardOf, plainFolders.has(folder));
      cache.set(key, entry);
      return entry.result;
    };
    // Read in folder order, so which of two same-named skills wins is always the same.
    let slice = performance.now();
    for (const folder of folders) {
      if (performance.now() - slice > SLICE_MS) {
        await new Promise((resume) => setImmediate(resume));
        slice = performance.now();
      }
      const result = readFolder(folder);
      if (!result) continue;
      if ('diagnostic' in result) {
        diagnostics.push(result.diagnostic);
        continue;
      }
      const { skill } = result;
      const { name, path } = skill.contract;
      const earlier = firstPath.get(name);
      if (earlier) {
        diagnostics.push(problem(path, `duplicate name "${name}", already defined by ${earlier}`, name));
        continue;
      }
      firstPath.set(name, path);
      const folderDir = realDir;
      skills.push({ contract: skill.contract, readBody: () => rereadBody(folderDir, folder, maxFileBytes) });
    }
  }
  // Folders that went (or directories that did) leave the cache with them.
  for (const key of cache.keys()) if (!seen.has(key)) cache.delete(key);
  return { tools: [], skills, diagnostics };
}

/**
 * Reads one folder's SKILL.md and parses it, unless it is the file `cached` was made from: with
 * `trustStats` (the watchers heard nothing from the folder) the same stats skip the read, unless
 * racy; the same bytes always skip the parse.
 */
function readSkillFolder(
  realDir: string,
  dir: string,
  folder: string,
  maxFileBytes: number,
  cached: CachedFolder | undefined,
  trustStats: boolean,
  /** The folder is a directory under realDir, not a link (readdir said so). */
  plainFolder: boolean,
): CachedFolder {
  const path = join(dir, folder, SKILL_FILE);
  const own = join(realDir, folder, SKILL_FILE);
  const unread = (result: FolderResult, recheck: boolean): CachedFolder => ({ result, stamp: null, hash: null, racy: false, recheck });
  try {
    if (trustStats && cached?.stamp && !cached.racy) {
      const looked = lookConfined(realDir, own, maxFileBytes, plainFolder);
      if (looked && stampOf(looked.real, looked.stats) === cached.stamp) return cached;
    }
    const readAt = BigInt(Date.now()) * 1_000_000n;
    const file = readConfined(realDir, own, maxFileBytes, plainFolder);
    if (!file) return unread(null, false); // a folder without SKILL.md is not a skill
    const recheck = file.real !== own;
    const stamp = stampOf(file.real, file.stats);
    const racy = file.stats.mtimeNs > readAt - RACY_MS * 1_000_000n;
    const hash = sha256(file.bytes);
    if (cached?.hash === hash) return { ...cached, stamp, racy, recheck };
    skillParses.listener?.(path);
    const parsed = parseSkillFile(path, file.bytes);
    const result: FolderResult = parsed.ok ? { skill: parsed.skill } : { diagnostic: problem(path, parsed.problem.reason, parsed.problem.capability, parsed.problem.line) };
    return { result, stamp, hash, racy, recheck };
  } catch (error) {
    // Refused or unreadable: looked at again on every reload that looks at the folder.
    return unread({ diagnostic: problem(path, reasonOf(error)) }, true);
  }
}

/** Activation reads the file again, with the same checks as loading. */
async function rereadBody(realDir: string, folder: string, maxFileBytes: number): Promise<SkillBody> {
  const path = join(realDir, folder, SKILL_FILE);
  const stale = (why: string) => new CapstanError('STALE_CAPABILITY', `${path} ${why}; discover it again`, { part: 'contractHash' });
  let bytes: Buffer | null;
  try {
    bytes = readConfinedFile(realDir, path, maxFileBytes);
  } catch (error) {
    throw stale(reasonOf(error));
  }
  if (!bytes) throw stale('was removed');
  const body = readSkillBody(bytes);
  if (!body) throw stale('is no longer a skill file');
  return body;
}

/**
 * One non-recursive watcher per skills directory (folders added, removed, renamed) and one per
 * skill folder (its SKILL.md edited), as skills live at `<dir>/<folder>/SKILL.md`. Node's
 * recursive watch does the same on Linux, but with a synchronous readdir of every folder at once:
 * 10,000 skills blocked the event loop for seconds. Here a folder is watched as the load reaches
 * it, and folders are followed as they come and go. A file deeper in a folder (a link target in a
 * subfolder) is not watched: its edits show with the next reload.
 */
class SkillWatchers {
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

  constructor(
    readonly dirs: readonly string[],
    readonly problems: Map<string, ProviderDiagnostic>,
  ) {}

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
    this.problems.set(dir, problem(dir, `is no longer watched (${(error as Error).message}): edits to it show after a restart`));
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
