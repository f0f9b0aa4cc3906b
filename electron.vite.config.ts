import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import { normalizePath, type Plugin } from 'vite';

/**
 * The window's own files get React's JSX functions from renderer/jsx-runtime.ts, as constants:
 * React ships CommonJS, and a call through its module object (`(0,x.jsx)(…)`, at each of the
 * window's ~2,500 elements) weighs more than a call to a constant — 0.6 KB gzipped in all.
 * Packages, and the shim itself, keep React's own module.
 */
function reactJsxAsConstants(): Plugin {
  const shim = normalizePath(resolve(import.meta.dirname, 'renderer/jsx-runtime.ts'));
  return {
    name: 'airlock:react-jsx-as-constants',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source !== 'react/jsx-runtime' || importer === undefined) return null;
      const from = normalizePath(importer);
      return from === shim || from.includes('/node_modules/') ? null : shim;
    },
  };
}

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
      // Small pure-JavaScript libraries every command uses are bundled in (one file each command loads
      // instead of dozens; commander, a CommonJS package, then skips Node's CommonJS loader and its export
      // scan at every start); the rest stay packages, loaded from node_modules when a command needs them.
      externalizeDeps: { exclude: ['diff', 'zod', '@modelcontextprotocol/sdk', 'commander'] },
      rollupOptions: {
        input: {
          index: resolve(import.meta.dirname, 'electron/main/index.ts'),
          cli: resolve(import.meta.dirname, 'electron/cli/index.ts'),
        },
        // Packages are imported for what they export, never for a side effect of loading them: one
        // imported and then unused is not loaded at all (a command starts faster for what it leaves out).
        treeshake: { moduleSideEffects: 'no-external' },
        output: {
          codeSplitting: {
            groups: [
              {
                // What every command loads before it knows which command it runs, in one file: each
                // file is a read and a compile of its own, and `airlock --version` needs nothing else.
                name: 'cli-start',
                test: /electron[\\/](cli[\\/](output|terminal|server-text|text-width)|core[\\/](errors|data-dir|inert))\.ts$|package\.json$/,
              },
            ],
          },
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
    plugins: [reactJsxAsConstants(), react()],
    build: {
      outDir: resolve(import.meta.dirname, 'out/renderer'),
      // electron-vite leaves the renderer unminified by default; the window loads it from disk at
      // every start, so it ships minified (the chat and rarely-used screens load on demand).
      minify: true,
      rollupOptions: {
        input: resolve(import.meta.dirname, 'renderer/index.html'),
        // As in main: packages are imported for what they export, never for a side effect of loading
        // them, so a package file none of whose exports is used is left out (the MCP client's OAuth
        // helpers and JSON Schema validator, which the screen bridge's import drags in otherwise).
        // The window's own files (and its stylesheet) keep their side effects.
        treeshake: { moduleSideEffects: (id: string) => !/[\\/]node_modules[\\/]/.test(id) },
      },
    },
  },
});
