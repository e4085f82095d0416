import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { operations } from '../../shared/api';
import { errorCodes } from '../../shared/errors';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('the README', () => {
  it('starts with the two commands a newcomer runs', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).toMatch(/^npm install && npm start\b/m);
    expect(firstBlock).toMatch(/^npm test\b/m);
  });

  it('documents every error code with its HTTP status', () => {
    for (const [code, { status }] of Object.entries(errorCodes)) {
      // A client-side code (status 0) has no HTTP status: the table says so in words.
      expect(readme, code).toMatch(new RegExp(`\\| \`${code}\` \\| ${status === 0 ? 'none \\(client-side\\)' : status} \\|`));
    }
  });

  it('documents every HTTP route of the API contract', () => {
    for (const { method, path } of Object.values(operations)) {
      const documented = path.startsWith('/discovery/') ? readme.includes(`| \`${path.slice('/discovery/'.length)}\``) : readme.includes(`${method} ${path.replace(/:(\w+)/g, '<$1>')}`);
      expect(documented, `${method} ${path}`).toBe(true);
    }
  });
});
