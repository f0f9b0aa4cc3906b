/** Types of Airlock's lint plugin (eslint/airlock-rules.mjs), for the test that shows its rules failing. */
import type { ESLint } from 'eslint';

export declare const airlockPlugin: ESLint.Plugin;
/** Why importing `specifier` from `file` breaks the house, or undefined when it does not. */
export declare function layerProblem(file: string, specifier: string): string | undefined;
/** Forgets the files read (a test that changes files between runs). */
export declare function forgetImports(): void;
