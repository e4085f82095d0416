/** Writing SKILL.md files for the gateway to pick up, at start or (watched) while it runs. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface SkillFields {
  description: string;
  tags?: string[];
  'argument-hint'?: string;
  'allowed-tools'?: string;
  'disable-model-invocation'?: boolean;
}

/** `<dir>/<name>/SKILL.md` with valid frontmatter; returns the file's path. */
export function writeSkill(dir: string, name: string, fields: SkillFields, body = `# ${name}\n\n1. Do the thing.\n`): Promise<string> {
  const frontmatter = Object.entries({ name, ...fields })
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
    .join('\n');
  return writeSkillFile(dir, name, `---\n${frontmatter}\n---\n${body}`);
}

/** `<dir>/<folder>/SKILL.md` with exactly this text, valid or not; returns the file's path. */
export async function writeSkillFile(dir: string, folder: string, text: string): Promise<string> {
  await mkdir(join(dir, folder), { recursive: true });
  const path = join(dir, folder, 'SKILL.md');
  await writeFile(path, text);
  return path;
}
