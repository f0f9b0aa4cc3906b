/**
 * Airlock's own lint rules, which keep the house as eslint/house.mjs draws it
 * (VS Code's code-layering rule, in small):
 * - `airlock/layers`: every import is checked against the floors (which
 *   folder may import which, Node, Electron, packages), the shells may use
 *   only the core's faces, and the core's rooms keep their own rules (the
 *   policy is pure; the sandbox and the supervisor never decide calls);
 * - `airlock/no-cycles`: no file imports, however indirectly, a file that
 *   imports it (type-only imports count: a circle of types is a circle of
 *   knowledge);
 * - `airlock/platform-seam`: only the sandbox's platform seam, and the few
 *   files house.mjs names with their reason, ask which OS this is or
 *   whether Airlock runs as root.
 */
import { readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { coreFaces, coreRules, floors, platformQuestions } from './house.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.mjs', '.js'];

/** A repository path with forward slashes. */
const repoPath = (absolute) => relative(ROOT, absolute).split(sep).join('/');

/** The file a relative specifier names (with the extension TypeScript would try), or undefined. */
function resolveRelative(fromFile, specifier) {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base, ...EXTENSIONS.map((ext) => base + ext), ...EXTENSIONS.map((ext) => join(base, `index${ext}`))];
  // `./x.js` written for a TypeScript file `./x.ts`.
  if (/\.js$/.test(base)) candidates.push(base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'));
  for (const candidate of candidates) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not this candidate: try the next.
    }
  }
  return undefined;
}

function floorOf(path) {
  return floors.find((floor) => path.startsWith(floor.path));
}

/** True when `target` (a repository path) is one of the core's faces. */
function isCoreFace(target) {
  if (!target.startsWith(coreFaces.topLevel)) return false;
  const rest = target.slice(coreFaces.topLevel.length);
  if (!rest.includes('/')) return true;
  if (coreFaces.folders.some((folder) => target.startsWith(folder))) return true;
  return /^[^/]+\/index\.[a-z]+$/.test(rest);
}

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Why importing `specifier` from `file` breaks the house, or undefined when it does not. */
export function layerProblem(file, specifier) {
  const from = repoPath(file);
  const floor = floorOf(from);
  if (!floor) return undefined;
  if (specifier.startsWith('.')) {
    const resolved = resolveRelative(file, specifier);
    const target = resolved ? repoPath(resolved) : repoPath(resolve(dirname(file), specifier));
    if (target === 'package.json') return floor.may.includes('package') ? undefined : `${floor.name} may not read package.json`;
    const allowed = floor.may.some((may) => (may === 'core-faces' ? isCoreFace(target) : target.startsWith(may)));
    if (!allowed) {
      const core = target.startsWith('electron/core/') && floor.may.includes('core-faces');
      return core
        ? `${floor.name} may use only the core's faces (host.ts and the other top-level files, ipc/, a room's index.ts), not ${target}`
        : `${floor.name} (${floor.holds}) may not import ${target}`;
    }
    for (const rule of coreRules) {
      if (!from.startsWith(rule.from)) continue;
      const forbidden = rule.mayNot.find((prefix) => target.startsWith(prefix));
      if (forbidden) return `${rule.from} may not import ${target}: ${rule.why}`;
    }
    return undefined;
  }
  if (specifier === 'electron' || specifier.startsWith('electron/')) return floor.electron ? undefined : `${floor.name} may never import electron`;
  if (NODE_BUILTINS.has(specifier)) {
    const rule = coreRules.find((r) => from.startsWith(r.from) && r.node === false);
    if (rule) return `${rule.from} may not use Node's ${specifier}: ${rule.why}`;
    return floor.node ? undefined : `${floor.name} may not use Node's ${specifier}`;
  }
  if (floor.packages === true) return undefined;
  const name = packageName(specifier);
  return floor.packages.some((allowed) => specifier === allowed || specifier.startsWith(`${allowed}/`) || name === allowed) ? undefined : `${floor.name} may not import the package ${specifier}`;
}

// ── The import graph, for cycles ──────────────────────────────────────────

const SPECIFIERS = [/\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?['"]([^'"]+)['"]/g, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g];

/** Each file's relative imports, resolved, read once per lint run. */
const edges = new Map();
function importsOf(file) {
  let targets = edges.get(file);
  if (targets) return targets;
  targets = [];
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // A file that cannot be read imports nothing we can follow.
  }
  for (const pattern of SPECIFIERS) {
    for (const match of text.matchAll(pattern)) {
      if (!match[1].startsWith('.')) continue;
      const target = resolveRelative(file, match[1]);
      if (target && !targets.includes(target)) targets.push(target);
    }
  }
  edges.set(file, targets);
  return targets;
}

/** The path from `from` back to `to` through imports, if there is one (a circle when `to` imports `from`). */
function pathBack(from, to) {
  const seen = new Set([from]);
  const previous = new Map();
  const queue = [from];
  while (queue.length) {
    const node = queue.shift();
    for (const next of importsOf(node)) {
      if (next === to) {
        const path = [node];
        for (let at = node; previous.has(at); at = previous.get(at)) path.unshift(previous.get(at));
        return path;
      }
      if (seen.has(next)) continue;
      seen.add(next);
      previous.set(next, node);
      queue.push(next);
    }
  }
  return undefined;
}

// ── The rules ─────────────────────────────────────────────────────────────

/** Calls `check(node, specifier)` for every module specifier in a file. */
function eachSpecifier(check) {
  const literal = (node, source) => {
    if (source && source.type === 'Literal' && typeof source.value === 'string') check(node, source.value);
  };
  return {
    ImportDeclaration: (node) => literal(node, node.source),
    ExportNamedDeclaration: (node) => literal(node, node.source),
    ExportAllDeclaration: (node) => literal(node, node.source),
    ImportExpression: (node) => literal(node, node.source),
    CallExpression: (node) => {
      if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments.length === 1) literal(node, node.arguments[0]);
    },
  };
}

const layers = {
  meta: { type: 'problem', docs: { description: 'Imports follow the house (eslint/house.mjs).' }, schema: [], messages: { layer: '{{problem}} (the house: eslint/house.mjs)' } },
  create(context) {
    return eachSpecifier((node, specifier) => {
      const problem = layerProblem(context.filename, specifier);
      if (problem) context.report({ node, messageId: 'layer', data: { problem } });
    });
  },
};

const noCycles = {
  meta: { type: 'problem', docs: { description: 'No file imports, however indirectly, a file that imports it.' }, schema: [], messages: { cycle: 'This import closes a circle: {{target}} imports {{file}} again. Break it: move what both need to a third file.' } },
  create(context) {
    const file = context.filename;
    return eachSpecifier((node, specifier) => {
      if (!specifier.startsWith('.')) return;
      const target = resolveRelative(file, specifier);
      if (!target || target === file) return;
      const path = pathBack(target, file);
      if (path) context.report({ node, messageId: 'cycle', data: { target: path.map(repoPath).join(' → '), file: repoPath(file) } });
    });
  },
};

/** True for a handler that does nothing: `() => {}`, `() => undefined`, `function () {}`. */
function doesNothing(fn) {
  if (fn.type !== 'ArrowFunctionExpression' && fn.type !== 'FunctionExpression') return false;
  if (fn.body.type === 'BlockStatement') return fn.body.body.length === 0;
  return (fn.body.type === 'Identifier' && fn.body.name === 'undefined') || (fn.body.type === 'Literal' && fn.body.value === null) || (fn.body.type === 'UnaryExpression' && fn.body.operator === 'void');
}

const explainedCatch = {
  meta: {
    type: 'problem',
    docs: { description: 'A promise failure that is dropped says why that is safe.' },
    schema: [],
    messages: { unexplained: 'This drops a failure without a word of why that is safe: say it in a comment inside the handler or on the line before (STYLE.md, "Errors").' },
  },
  create(context) {
    const source = context.sourceCode;
    const explained = (call, fn) => {
      if (fn.body.type === 'BlockStatement' && source.getCommentsInside(fn.body).length > 0) return true;
      // A comment on the line before the statement, or at the end of the call's own line.
      const line = call.loc.start.line;
      return source.getAllComments().some((comment) => comment.loc.end.line === line - 1 || comment.loc.start.line === call.loc.end.line || (comment.loc.start.line >= line && comment.loc.end.line <= call.loc.end.line));
    };
    return {
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier') return;
        const name = callee.property.name;
        const handler = name === 'catch' ? node.arguments[0] : name === 'then' ? node.arguments[1] : undefined;
        if (handler && doesNothing(handler) && !explained(node, handler)) context.report({ node: handler, messageId: 'unexplained' });
      },
    };
  },
};

/** Whether `file` (a repository path) may ask which OS this is, or whether it runs as root. */
export function mayAskPlatform(file) {
  return file.startsWith(platformQuestions.seam) || platformQuestions.allowed.some((entry) => entry.path === file);
}

const OS_MODULES = new Set(['os', 'node:os']);

const platformSeam = {
  meta: {
    type: 'problem',
    docs: { description: 'Only the platform seam (and the files house.mjs names) asks which OS this is.' },
    schema: [],
    messages: {
      asks: '{{what}} asks which OS (or which user) this is: the sandbox asks only in electron/core/sandbox/platform/ (a backend says what holds); elsewhere add the file to platformQuestions in eslint/house.mjs with its reason.',
    },
  },
  create(context) {
    const file = repoPath(context.filename);
    if (!floorOf(file) || mayAskPlatform(file)) return {};
    /** Names bound to the os module (`import os from 'node:os'`, `import * as os …`) and to its `platform` (`import { platform } …`). */
    const osNames = new Set();
    const platformNames = new Set();
    const report = (node, what) => context.report({ node, messageId: 'asks', data: { what } });
    return {
      ImportDeclaration(node) {
        if (!OS_MODULES.has(node.source.value)) return;
        for (const specifier of node.specifiers) {
          if (specifier.type === 'ImportSpecifier') {
            const imported = specifier.imported.type === 'Identifier' ? specifier.imported.name : specifier.imported.value;
            if (imported === 'platform' || imported === 'type') {
              platformNames.add(specifier.local.name);
              report(specifier, `os.${imported}`);
            }
          } else osNames.add(specifier.local.name);
        }
      },
      MemberExpression(node) {
        if (node.object.type !== 'Identifier' || node.computed || node.property.type !== 'Identifier') return;
        const { name } = node.object;
        const property = node.property.name;
        if (name === 'process' && (property === 'platform' || property === 'geteuid')) report(node, `process.${property}`);
        else if (osNames.has(name) && (property === 'platform' || property === 'type')) report(node, `os.${property}`);
      },
    };
  },
};

/** The plugin: `airlock/layers`, `airlock/no-cycles`, `airlock/explained-catch`, `airlock/platform-seam`. */
export const airlockPlugin = { meta: { name: 'airlock' }, rules: { layers, 'no-cycles': noCycles, 'explained-catch': explainedCatch, 'platform-seam': platformSeam } };

/** Forgets the files read (a test that changes files between runs). */
export function forgetImports() {
  edges.clear();
}
