/**
 * The skills provider: folders of `<name>/SKILL.md` under each skills directory. Skill files are
 * untrusted: each is read with the checks in confinedFile.ts and parsed within limits, and any
 * problem with one file, or with watching a directory, is a diagnostic naming it. One bad file
 * never stops the start nor keeps the other skills from loading and updating.
 */
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CapstanError } from '../../../shared/errors';
import type { Provider, ProviderContents, SkillBody, SkillSource } from '../../catalog/provider';
import { DEFAULT_SKILL_MAX_FILE_BYTES } from '../../config';
import { readConfinedFile, RefusedFile } from './confinedFile';
import { parseSkillFile, readSkillBody, SKILL_FILE } from './skillFile';

export const SKILLS_PROVIDER = 'skills';
/** Editors save in bursts (temp file, rename, chmod); wait for the burst to settle. */
const WATCH_SETTLE_MS = 100;

type ProviderDiagnostic = ProviderContents['diagnostics'][number];

export interface SkillsOptions {
  /** config.json's `skills.maxFileBytes`: bigger SKILL.md files are refused. */
  maxFileBytes?: number;
}

export function skillsProvider(dirs: readonly string[], { maxFileBytes = DEFAULT_SKILL_MAX_FILE_BYTES }: SkillsOptions = {}): Provider {
  // Watching problems are reported with the next load, beside the files' own.
  const watchProblems = new Map<string, ProviderDiagnostic>();
  const watchers = new SkillWatchers(dirs, watchProblems);
  return {
    name: SKILLS_PROVIDER,
    kind: 'skills',
    load: async () => {
      // Watching starts with the first load and each folder is watched before it is read, so an
      // edit made while 10,000 files are read is not lost between the read and the watch.
      watchers.start();
      const contents = await loadSkills(dirs, maxFileBytes, (dir, folder) => watchers.folder(dir, folder));
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
 * Files read at once while loading. Each read is several round trips to libuv's thread pool
 * (realpath, stat, open, fstat, read, close); one file after another, 10,000 skills left the
 * process waiting most of its start. Parsing stays on this thread, between reads.
 */
const READ_CONCURRENCY = 64;

type FolderResult = { skill: Omit<SkillSource, 'readBody'>; folder: string } | { diagnostic: ProviderDiagnostic } | null;

async function loadSkills(dirs: readonly string[], maxFileBytes: number, beforeRead: (dir: string, folder: string) => void): Promise<ProviderContents> {
  const skills: SkillSource[] = [];
  const diagnostics: ProviderDiagnostic[] = [];
  const firstPath = new Map<string, string>();
  for (const dir of dirs) {
    let realDir: string;
    let folders: string[];
    try {
      realDir = await realpath(dir);
      folders = (await readdir(realDir, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
        .map((entry) => entry.name)
        .sort();
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      diagnostics.push(problem(dir, missing ? 'skills directory does not exist' : `skills directory ${reasonOf(error)}`));
      continue;
    }
    const readFolder = async (folder: string): Promise<FolderResult> => {
      const path = join(dir, folder, SKILL_FILE);
      beforeRead(dir, folder);
      try {
        const bytes = await readConfinedFile(realDir, join(realDir, folder, SKILL_FILE), maxFileBytes);
        if (!bytes) return null; // a folder without SKILL.md is not a skill
        const parsed = parseSkillFile(path, bytes);
        if (parsed.ok) return { skill: parsed.skill, folder };
        const { capability, reason, line } = parsed.problem;
        return { diagnostic: problem(path, reason, capability, line) };
      } catch (error) {
        return { diagnostic: problem(path, reasonOf(error)) };
      }
    };
    // Read in parallel, then taken in folder order, so which of two same-named skills wins
    // does not depend on which file came back first.
    const results = await mapConcurrently(folders, READ_CONCURRENCY, readFolder);
    for (const result of results) {
      if (!result) continue;
      if ('diagnostic' in result) {
        diagnostics.push(result.diagnostic);
        continue;
      }
      const { skill, folder } = result;
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
  return { tools: [], skills, diagnostics };
}

/** `map` with at most `limit` calls pending at once; results in the input's order. */
async function mapConcurrently<T, R>(items: readonly T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await map(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Activation reads the file again, with the same checks as loading. */
async function rereadBody(realDir: string, folder: string, maxFileBytes: number): Promise<SkillBody> {
  const path = join(realDir, folder, SKILL_FILE);
  const stale = (why: string) => new CapstanError('STALE_CAPABILITY', `${path} ${why}; discover it again`, { part: 'contractHash' });
  let bytes: Buffer | null;
  try {
    bytes = await readConfinedFile(realDir, path, maxFileBytes);
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

  constructor(
    readonly dirs: readonly string[],
    readonly problems: Map<string, ProviderDiagnostic>,
  ) {}

  start(): void {
    if (this.#started) return;
    this.#started = true;
    for (const dir of this.dirs) this.#watch(dir, dir, (_event, name) => this.#folderEvent(dir, name));
  }

  /** Watches `<dir>/<folder>` if it is not yet. */
  folder(dir: string, folder: string): void {
    this.#watch(dir, join(dir, folder), () => this.#settle());
  }

  listen(onChange: () => void): () => void {
    this.#onChange = onChange;
    if (this.#pending) this.#settle();
    return () => {
      this.#stopped = true;
      clearTimeout(this.#timer);
      for (const watcher of this.#watchers.values()) watcher.close();
      this.#watchers.clear();
    };
  }

  /** Editors save in bursts (temp file, rename, chmod): one reload when the burst settles. */
  #settle(): void {
    if (!this.#onChange) {
      this.#pending = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = setTimeout(this.#onChange, WATCH_SETTLE_MS);
  }

  #unwatched(dir: string, error: unknown): void {
    this.problems.set(dir, problem(dir, `is no longer watched (${(error as Error).message}): edits to it show after a restart`));
    this.#settle();
  }

  #watch(dir: string, path: string, listener: (event: string, name: string | null) => void): void {
    if (this.#stopped || this.#watchers.has(path)) return;
    try {
      const watcher = watch(path, { persistent: false }, listener);
      watcher.on('error', (error) => {
        // A folder's watcher fails when the folder goes; only the directory's failure is a problem.
        if (path === dir || existsSync(path)) this.#unwatched(dir, error);
        this.#forget(path);
      });
      this.#watchers.set(path, watcher);
    } catch (error) {
      // Missing: a folder removed meanwhile, or a directory whose diagnostic is the load's.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#unwatched(dir, error);
    }
  }

  #forget(path: string): void {
    this.#watchers.get(path)?.close();
    this.#watchers.delete(path);
  }

  /** An entry of a skills directory appeared or went: reload, and follow a new folder. */
  #folderEvent(dir: string, name: string | null): void {
    this.#settle();
    if (!name) return;
    const path = join(dir, name);
    void stat(path).then(
      (found) => (found.isDirectory() ? this.folder(dir, name) : this.#forget(path)),
      () => this.#forget(path),
    );
  }
}
