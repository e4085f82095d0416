/**
 * The skills provider: folders of `<name>/SKILL.md` under each skills directory. Skill files are
 * untrusted: each is read with the checks in confinedFile.ts and parsed within limits, and any
 * problem with one file, or with watching a directory, is a diagnostic naming it. One bad file
 * never stops the start nor keeps the other skills from loading and updating.
 */
import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { CapstanError } from '../../../shared/errors';
import type { Provider, ProviderContents, SkillBody, SkillSource } from '../../catalog/provider';
import { DEFAULT_SKILL_MAX_FILE_BYTES } from '../../config';
import { lookConfined, readConfined, readConfinedFile, RefusedFile } from './confinedFile';
import { parseSkillFile, readSkillBody, SKILL_FILE } from './skillFile';
import { SkillWatchers, type Changed } from './watchers';

export const SKILLS_PROVIDER = 'skills';
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
  const watchers = new SkillWatchers(dirs);
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
      return { ...contents, diagnostics: [...contents.diagnostics, ...[...watchers.problems].map(([dir, reason]) => problem(dir, reason))] };
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
