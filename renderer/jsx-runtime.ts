/**
 * React's JSX functions as ES module constants, for the build only (the
 * `reactJsxAsConstants` plugin in electron.vite.config.ts points the
 * window's own `react/jsx-runtime` imports here). React ships CommonJS, so
 * a bundle otherwise calls them through its module object — `(0,x.jsx)(…)`
 * at each of the window's elements; a constant is called directly. Same
 * functions, same behaviour.
 */
import * as runtime from 'react/jsx-runtime';

export const jsx = runtime.jsx;
export const jsxs = runtime.jsxs;
export const Fragment = runtime.Fragment;
