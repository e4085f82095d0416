import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { CONTENT_SECURITY_POLICY } from './shared/security.ts';

/** Puts the shared CSP into index.html, where Electron (loading from file://) enforces it. */
const contentSecurityPolicy = (): Plugin => ({
  name: 'capstan-csp',
  transformIndexHtml: (html) =>
    html.replace('<head>', `<head>\n    <meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}" />`),
});

export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react(), contentSecurityPolicy()],
  build: { outDir: '../dist/renderer', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1500 },
});
