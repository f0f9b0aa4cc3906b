// Airlock's linter: the house's layers (eslint/house.mjs, enforced by
// eslint/airlock-rules.mjs), no circular imports, errors that say why they
// are safe to ignore, promises that are awaited, and React's rules of hooks.
// `npm test` runs it (npm run lint: about 25 s of CPU, 20–60 s on a loaded
// two-core machine, most of it the type-aware promise rules); a violation
// fails the build.
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { airlockPlugin } from './eslint/airlock-rules.mjs';

const SOURCE = ['electron/**/*.ts', 'shared/**/*.ts', 'renderer/**/*.ts', 'renderer/**/*.tsx'];

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'test/**', '**/*.d.ts'] },
  {
    files: SOURCE,
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: ['./tsconfig.node.json', './tsconfig.web.json'], tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@typescript-eslint': tseslint.plugin, airlock: airlockPlugin },
    rules: {
      // The house.
      'airlock/layers': 'error',
      'airlock/no-cycles': 'error',
      'airlock/explained-catch': 'error',
      'airlock/platform-seam': 'error',
      // An empty catch (or block) says why it is safe, in a comment inside it.
      'no-empty': ['error', { allowEmptyCatch: false }],
      // Promises: a forgotten one hides a failure; `void` says "on purpose".
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: true }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false, arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/no-duplicate-type-constituents': 'error',
      '@typescript-eslint/no-for-in-array': 'error',
      '@typescript-eslint/no-implied-eval': 'error',
      '@typescript-eslint/ban-ts-comment': 'error',
      'no-debugger': 'error',
      'no-var': 'error',
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    files: ['renderer/**/*.tsx', 'renderer/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
);
