import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

/**
 * One build for every part of Airlock:
 * - main: the Electron shell (`out/main/index.js`) and the headless `airlock` CLI
 *   (`out/main/cli.js`) — both from the same core, dependencies left external;
 * - preload: CommonJS, because a `sandbox: true` preload cannot be an ES module;
 * - renderer: React, served to the window from the `airlock://` scheme.
 */
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(import.meta.dirname, 'electron/main/index.ts'),
          cli: resolve(import.meta.dirname, 'electron/cli/index.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload cannot require() packages: bundle the contract (and zod) in.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(import.meta.dirname, 'electron/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(import.meta.dirname, 'renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(import.meta.dirname, 'out/renderer'),
      // electron-vite leaves the renderer unminified by default; the window loads it from disk at
      // every start, so it ships minified (the chat and rarely-used screens load on demand).
      minify: true,
      rollupOptions: { input: resolve(import.meta.dirname, 'renderer/index.html') },
    },
  },
});
