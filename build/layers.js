// The layering docs/ARCHITECTURE.md describes, as an ESLint rule: a module under electron/ or
// shared/ may import its own layer and the layers below it, never one above. Imports are resolved
// against the importing file, so `../services/api` from electron/runtime/ is caught however deep.
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Top to bottom. A path ending in `/` is a folder; any other names one module (without `.ts`). */
export const LAYERS = [
  ['entry points', ['electron/main', 'electron/preload', 'electron/start', 'electron/cli/', 'electron/shell/']],
  ['composition', ['electron/host', 'electron/server']],
  ['ways in', ['electron/transports/', 'electron/harn/']],
  ['services', ['electron/services/']],
  ['runtime', ['electron/runtime/']],
  ['providers', ['electron/providers/']],
  ['catalog', ['electron/catalog/']],
  ['store', ['electron/store/']],
  ['foundation', ['electron/config', 'electron/allowEntry', 'electron/gatewayFile', 'electron/logger', 'electron/paths', 'electron/telemetry/']],
  ['contract', ['shared/']],
];

/** The layer's index for a path relative to the project (with or without its extension), or -1 when it has none. */
export function layerOf(path) {
  const bare = path.replaceAll('\\', '/').replace(/\.(ts|tsx|js|mjs|cjs)$/, '').replace(/\/index$/, '');
  return LAYERS.findIndex(([, members]) => members.some((member) => (member.endsWith('/') ? bare.startsWith(member) : bare === member)));
}

const layering = {
  meta: {
    type: 'problem',
    docs: { description: 'Dependencies point down the layers of docs/ARCHITECTURE.md' },
    messages: {
      up: '{{from}} ({{fromLayer}}) imports {{to}} ({{toLayer}}), a layer above it: dependencies point down (docs/ARCHITECTURE.md)',
      unplaced: '{{from}} is in no layer: place it in build/layers.js and docs/ARCHITECTURE.md',
    },
    schema: [],
  },
  create(context) {
    const from = relative(root, context.filename).replaceAll('\\', '/');
    if (!from.startsWith('electron/') && !from.startsWith('shared/')) return {};
    const fromLayer = layerOf(from);
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = relative(root, resolve(dirname(context.filename), source)).replaceAll('\\', '/');
      const toLayer = layerOf(to);
      if (toLayer >= 0 && toLayer < fromLayer) {
        context.report({ node, messageId: 'up', data: { from, fromLayer: LAYERS[fromLayer][0], to, toLayer: LAYERS[toLayer][0] } });
      }
    };
    return {
      Program(node) {
        if (fromLayer < 0) context.report({ node, messageId: 'unplaced', data: { from } });
      },
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
    };
  },
};

export const layersPlugin = { rules: { layering } };
