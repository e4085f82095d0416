/**
 * The skills provider: folders of `<name>/SKILL.md` under each skills directory. Invalid files
 * become diagnostics; the directories are watched so edits reach the catalog while running.
 */
import { existsSync, readdirSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Provider, ProviderContents, SkillSource } from '../../catalog/provider';
import { parseSkillFile, readSkillBody, SKILL_FILE } from './skillFile';

export const SKILLS_PROVIDER = 'skills';
/** Editors save in bursts (temp file, rename, chmod); wait for the burst to settle. */
const WATCH_SETTLE_MS = 100;

export function skillsProvider(dirs: readonly string[]): Provider {
  return {
    name: SKILLS_PROVIDER,
    kind: 'skills',
    load: () => loadSkills(dirs),
    watch: (onChange) => watchDirs(dirs, onChange),
  };
}

function loadSkills(dirs: readonly string[]): ProviderContents {
  const skills: SkillSource[] = [];
  const diagnostics: ProviderContents['diagnostics'][number][] = [];
  const firstPath = new Map<string, string>();
  for (const dir of dirs) {
    if (!existsSync(dir)) {
      diagnostics.push({ path: dir, line: null, capability: null, reason: 'skills directory does not exist' });
      continue;
    }
    const folders = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
      .map((entry) => entry.name)
      .sort();
    for (const folder of folders) {
      const path = join(dir, folder, SKILL_FILE);
      let bytes: Buffer;
      try {
        bytes = readFileSync(path);
      } catch {
        continue; // a folder without SKILL.md is not a skill
      }
      const parsed = parseSkillFile(path, bytes);
      if (!parsed.ok) {
        const { capability, ...problem } = parsed.problem;
        diagnostics.push({ path, ...problem, capability: capability ? `${SKILLS_PROVIDER}:${capability}` : null });
        continue;
      }
      const { name } = parsed.skill.contract;
      const earlier = firstPath.get(name);
      if (earlier) {
        diagnostics.push({ path, line: null, capability: `${SKILLS_PROVIDER}:${name}`, reason: `duplicate name "${name}", already defined by ${earlier}` });
        continue;
      }
      firstPath.set(name, path);
      skills.push({ ...parsed.skill, readBody: () => rereadBody(path) });
    }
  }
  return { tools: [], skills, diagnostics };
}

async function rereadBody(path: string) {
  const body = readSkillBody(await readFile(path));
  if (!body) throw new Error(`${path} no longer has frontmatter`);
  return body;
}

function watchDirs(dirs: readonly string[], onChange: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const settle = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, WATCH_SETTLE_MS);
  };
  const watchers: FSWatcher[] = [];
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    try {
      const watcher = watch(dir, { recursive: true, persistent: false }, settle);
      watcher.on('error', () => {});
      watchers.push(watcher);
    } catch {
      // Watching is a convenience; a directory that cannot be watched is still read on reload.
    }
  }
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}
