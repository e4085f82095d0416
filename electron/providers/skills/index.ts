/**
 * The skills provider: folders of `<name>/SKILL.md` under each skills directory. Skill files are
 * untrusted: each is read with the checks in confinedFile.ts and parsed within limits, and any
 * problem with one file, or with watching a directory, is a diagnostic naming it. One bad file
 * never stops the start nor keeps the other skills from loading and updating.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
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
  return {
    name: SKILLS_PROVIDER,
    kind: 'skills',
    load: async () => {
      const contents = await loadSkills(dirs, maxFileBytes);
      return { ...contents, diagnostics: [...contents.diagnostics, ...watchProblems.values()] };
    },
    watch: (onChange) => watchDirs(dirs, onChange, watchProblems),
  };
}

const problem = (path: string, reason: string, capability: string | null = null, line: number | null = null): ProviderDiagnostic => ({
  path,
  line,
  capability: capability === null ? null : `${SKILLS_PROVIDER}:${capability}`,
  reason,
});

const reasonOf = (error: unknown) => (error instanceof RefusedFile ? error.message : `could not be read: ${(error as Error).message}`);

async function loadSkills(dirs: readonly string[], maxFileBytes: number): Promise<ProviderContents> {
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
    for (const folder of folders) {
      const path = join(dir, folder, SKILL_FILE);
      try {
        // Each file is read asynchronously, so other requests are served between files.
        const bytes = await readConfinedFile(realDir, join(realDir, folder, SKILL_FILE), maxFileBytes);
        if (!bytes) continue; // a folder without SKILL.md is not a skill
        const parsed = parseSkillFile(path, bytes);
        if (!parsed.ok) {
          const { capability, reason, line } = parsed.problem;
          diagnostics.push(problem(path, reason, capability, line));
          continue;
        }
        const { name } = parsed.skill.contract;
        const earlier = firstPath.get(name);
        if (earlier) {
          diagnostics.push(problem(path, `duplicate name "${name}", already defined by ${earlier}`, name));
          continue;
        }
        firstPath.set(name, path);
        skills.push({ ...parsed.skill, readBody: () => rereadBody(realDir, folder, maxFileBytes) });
      } catch (error) {
        diagnostics.push(problem(path, reasonOf(error)));
      }
    }
  }
  return { tools: [], skills, diagnostics };
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

function watchDirs(dirs: readonly string[], onChange: () => void, problems: Map<string, ProviderDiagnostic>): () => void {
  let timer: NodeJS.Timeout | undefined;
  const settle = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, WATCH_SETTLE_MS);
  };
  const unwatched = (dir: string, error: unknown) => {
    problems.set(dir, problem(dir, `is no longer watched (${(error as Error).message}): edits to it show after a restart`));
    settle();
  };
  const watchers: FSWatcher[] = [];
  for (const dir of dirs) {
    try {
      const watcher = watch(dir, { recursive: true, persistent: false }, settle);
      watcher.on('error', (error) => unwatched(dir, error));
      watchers.push(watcher);
    } catch (error) {
      // A missing directory already has its diagnostic from loading.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') unwatched(dir, error);
    }
  }
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}
