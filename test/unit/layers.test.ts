/**
 * `npm run lint` keeps the layering of docs/ARCHITECTURE.md (build/layers.js): these lint
 * sources as if they sat at the given paths, through the project's own ESLint config.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function layeringProblems(path: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: join(root, path) });
  return (result?.messages ?? []).filter((message) => message.ruleId === 'capstan/layering').map((message) => message.message);
}

describe('the layering rule', () => {
  it('refuses an import that runs up the layers, however deep the importing file', async () => {
    expect(await layeringProblems('electron/runtime/upward.ts', "import { dispatch } from '../services/api';\nvoid dispatch;\n")).toEqual([
      'electron/runtime/upward.ts (runtime) imports electron/services/api (services), a layer above it: dependencies point down (docs/ARCHITECTURE.md)',
    ]);
    expect(await layeringProblems('electron/providers/mcp/upward.ts', "import type { TaskRuntime } from '../../runtime/runtime';\nexport type T = TaskRuntime;\n")).toHaveLength(1);
    expect(await layeringProblems('electron/catalog/upward.ts', "export { builtinProvider } from '../providers/builtin';\n")).toHaveLength(1);
    expect(await layeringProblems('electron/services/upward.ts', "const load = () => import('../transports/http');\nvoid load;\n")).toHaveLength(1);
    expect(await layeringProblems('shared/upward.ts', "import type { Host } from '../electron/host';\nexport type H = Host;\n")).toHaveLength(1);
  });

  it('lets a module import its own layer and every layer below', async () => {
    const source = [
      "import { CallService } from './calls';",
      "import { TaskRuntime } from '../runtime/runtime';",
      "import { Catalog } from '../catalog/catalog';",
      "import { openDatabase } from '../store/database';",
      "import { readConfig } from '../config';",
      "import { CapstanError } from '../../shared/errors';",
      'void [CallService, TaskRuntime, Catalog, openDatabase, readConfig, CapstanError];',
    ].join('\n');
    expect(await layeringProblems('electron/services/downward.ts', source)).toEqual([]);
  });

  it('asks for a new folder to be placed in a layer', async () => {
    expect(await layeringProblems('electron/plugins/thing.ts', 'export const thing = 1;\n')).toEqual([
      'electron/plugins/thing.ts is in no layer: place it in build/layers.js and docs/ARCHITECTURE.md',
    ]);
  });
});
