/** Writes SKILL.md folders into a temporary skills directory. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SkillsDir {
  dir: string;
  write(folder: string, content: string): string;
  remove(folder: string): void;
  cleanup(): void;
}

export function skillsDir(): SkillsDir {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-skills-'));
  return {
    dir,
    write(folder, content) {
      mkdirSync(join(dir, folder), { recursive: true });
      const path = join(dir, folder, 'SKILL.md');
      writeFileSync(path, content);
      return path;
    },
    remove: (folder) => rmSync(join(dir, folder), { recursive: true, force: true }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export const skill = (fields: string, body = 'Do the thing.\n') => `---\n${fields}\n---\n${body}`;
