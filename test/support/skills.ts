/** Writes SKILL.md folders into a temporary skills directory, hostile ones included. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface SkillsDir {
  dir: string;
  write(folder: string, content: string | Uint8Array): string;
  /** A FIFO as `<folder>/SKILL.md`: reading it would wait for a writer forever. */
  fifo(folder: string): string;
  /** A symbolic link at `<dir>/<path>` pointing to `target`. */
  link(path: string, target: string): string;
  remove(folder: string): void;
  cleanup(): void;
}

export function skillsDir(): SkillsDir {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-skills-'));
  const skillFile = (folder: string) => {
    mkdirSync(join(dir, folder), { recursive: true });
    return join(dir, folder, 'SKILL.md');
  };
  return {
    dir,
    write(folder, content) {
      const path = skillFile(folder);
      writeFileSync(path, content);
      return path;
    },
    fifo(folder) {
      const path = skillFile(folder);
      execFileSync('mkfifo', [path]);
      return path;
    },
    link(path, target) {
      const at = join(dir, path);
      mkdirSync(dirname(at), { recursive: true });
      symlinkSync(target, at);
      return at;
    },
    remove: (folder) => rmSync(join(dir, folder), { recursive: true, force: true }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export const skill = (fields: string, body = 'Do the thing.\n') => `---\n${fields}\n---\n${body}`;

/** Billion laughs: nine levels of nine aliases each, 387 million strings once expanded. */
export const aliasBomb = (name: string) =>
  skill(
    [
      `name: ${name}`,
      'description: Expands without end',
      'a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]',
      ...'bcdefghi'.split('').map((level, i) => {
        const below = 'abcdefgh'[i]!;
        return `${level}: &${level} [${Array(9).fill(`*${below}`).join(', ')}]`;
      }),
    ].join('\n'),
  );

/** A YAML escape that decodes to half a surrogate pair: not a Unicode string. */
export const loneSurrogate = (name: string) => skill(`name: ${name}\ndescription: "half a pair \\ud83d here"`);

/** Frontmatter bytes that are not UTF-8 (0xff never is) on line 3. */
export const invalidUtf8 = (name: string) =>
  Buffer.concat([Buffer.from(`---\nname: ${name}\ndescription: bad `), Buffer.from([0xff, 0xfe]), Buffer.from('\n---\nBody\n')]);

/**
 * A valid skill whose frontmatter is about `bytes` long: a `meta` tree of block mappings nested
 * up to `depth` levels (the manifest's own fields stay at the top), like a generated catalog entry.
 */
export function nestedSkill(name: string, description: string, { bytes = 7_800, depth = 30 } = {}): string {
  const lines = [`name: ${name}`, `description: ${description}`, 'meta:'];
  let size = lines.join('\n').length;
  for (let branch = 0; size < bytes; branch += 1) {
    const levels = 1 + (branch % (depth - 1));
    for (let level = 1; level <= levels && size < bytes; level += 1) {
      const line = `${'  '.repeat(level)}k${branch}_${level}:${level === levels ? ' v' : ''}`;
      lines.push(line);
      size += line.length + 1;
    }
  }
  return skill(lines.join('\n'));
}

/** A frontmatter nested `levels` deep, as flow sequences, flow mappings or compact block sequences. */
export const deepSkill = (name: string, levels: number, style: 'flow-seq' | 'flow-map' | 'block-seq' = 'flow-seq') =>
  skill(
    `name: ${name}\ndescription: Nested ${levels} levels\ndeep: ${
      style === 'flow-seq' ? `${'['.repeat(levels)}${']'.repeat(levels)}` : style === 'flow-map' ? `${'{a: '.repeat(levels)}x${'}'.repeat(levels)}` : `\n  ${'- '.repeat(levels)}x`
    }`,
  );
