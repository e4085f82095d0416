import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './build/layers.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tools/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // The renderer never touches Node: everything it needs comes through its transport.
      'no-restricted-imports': ['error', { patterns: ['node:*', 'electron', '**/electron/**'] }],
    },
  },
  {
    // CommonJS on purpose (a module preloaded with `node --require`), so require() is its import.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Only the entry (main.ts), the preload and the shell (window, menu, IPC, app life) may import
    // electron; the rest of the main side runs under plain Node, in `capstan serve` and in tests.
    files: ['electron/**/*.ts', 'shared/**/*.ts'],
    ignores: ['electron/main.ts', 'electron/preload.ts', 'electron/shell/**'],
    rules: { 'no-restricted-imports': ['error', { paths: ['electron'] }] },
  },
  {
    // Dependencies point down the layers of docs/ARCHITECTURE.md (build/layers.js).
    files: ['electron/**/*.ts', 'shared/**/*.ts'],
    plugins: { capstan: layersPlugin },
    rules: { 'capstan/layering': 'error' },
  },
);
