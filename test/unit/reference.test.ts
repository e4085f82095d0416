import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderReference } from '../../build/reference';
import { operations } from '../../shared/api';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('docs/reference.md', () => {
  it('is what build/reference.ts renders from the contract', () => {
    // A failure here means shared/errors.ts or shared/api.ts changed: run `npm run docs`.
    expect(read('docs/reference.md'), 'docs/reference.md is stale: run `npm run docs`').toBe(renderReference());
  });
});

describe('docs/api.md', () => {
  it('tells the story of every HTTP route of the API contract', () => {
    const api = read('docs/api.md');
    for (const { method, path } of Object.values(operations)) {
      const documented = path.startsWith('/discovery/')
        ? api.includes(`| \`${path.slice('/discovery/'.length)}\``)
        : api.includes(`${method} ${path.replace(/:(\w+)/g, '<$1>')}`);
      expect(documented, `${method} ${path}`).toBe(true);
    }
  });
});

/** Markdown outside fenced code blocks, where a `[text](target)` is a link. */
const prose = (markdown: string) => markdown.replace(/^[ \t]*```[\s\S]*?^[ \t]*```/gm, '');

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as dashes, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading = ''] of prose(markdown).matchAll(/^#{1,6} (.*)$/gm)) {
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

const docs = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);

describe('the markdown docs', () => {
  it.each(['README.md', ...docs])('%s links only to files and headings that exist', (file) => {
    const broken: string[] = [];
    const text = prose(read(file)).replace(/`[^`\n]*`/g, '');
    for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
      const [path = '', anchor] = target.split('#');
      const resolved = path === '' ? join(root, file) : join(root, dirname(file), decodeURIComponent(path));
      if (!existsSync(resolved)) {
        broken.push(`${target}: no file ${relative(root, resolved)}`);
        continue;
      }
      if (anchor !== undefined && !(statSync(resolved).isFile() && anchors(readFileSync(resolved, 'utf8')).has(anchor))) {
        broken.push(`${target}: no heading #${anchor} in ${relative(root, resolved)}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
