/**
 * A small evaluator of the Seatbelt profile language (SBPL) as
 * sandbox-runtime 0.0.78 emits it — a MODEL of Seatbelt's matching, NOT
 * Seatbelt: it lets the tests on Linux ask "may this process read, write,
 * connect to X?" of the exact profile text the macOS backend produces,
 * instead of grepping it. What it models, as the package's own comments
 * describe Seatbelt (macos-sandbox-utils.js):
 *
 * - rules are `(allow|deny <operation>… <filter>… (with …)?)`; a rule with
 *   several filters matches when any does; with none, always;
 * - an operation's own rules are consulted before its wildcard's
 *   (`file-write-unlink` before `file-write*`): "a specific (deny
 *   file-write-unlink) is not overridden by a later (allow file-write*)";
 * - within one level, the last matching rule wins; nothing matches: the
 *   `(deny default)`;
 * - filters: `subpath` (the path and everything below it), `literal`,
 *   `regex`/`path-regex` (POSIX-extended-like, run here as a JavaScript
 *   RegExp), `require-all`/`require-any`/`require-not`, `vnode-type`,
 *   `remote ip "localhost:<port>"` (127.0.0.1 and ::1).
 *
 * Filters it does not model (mach, sysctl, iokit, …) never match a file or
 * network question; a filter it does not know at all throws, so the model
 * cannot silently drift from the text. Only what is on a real Mac is
 * Seatbelt: the CI workflow runs the sandbox there.
 */

type Node = { kind: 'list'; items: Node[] } | { kind: 'string'; value: string } | { kind: 'symbol'; value: string };

/** Reads SBPL text into S-expressions (`;` comments, `"…"` strings with JSON escapes, `#"…"` raw strings). */
export function parseSbpl(text: string): Node[] {
  let i = 0;
  const top: Node[] = [];
  const stack: Node[][] = [top];
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === ';') {
      while (i < text.length && text[i] !== '\n') i += 1;
    } else if (/\s/.test(ch)) {
      i += 1;
    } else if (ch === '(') {
      const list: Node = { kind: 'list', items: [] };
      stack.at(-1)!.push(list);
      stack.push(list.items);
      i += 1;
    } else if (ch === ')') {
      if (stack.length === 1) throw new Error(`unbalanced ) at ${i}`);
      stack.pop();
      i += 1;
    } else if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      stack.at(-1)!.push({ kind: 'string', value: JSON.parse(text.slice(i, j + 1)) as string });
      i = j + 1;
    } else if (ch === '#' && text[i + 1] === '"') {
      const end = text.indexOf('"', i + 2);
      stack.at(-1)!.push({ kind: 'string', value: text.slice(i + 2, end) });
      i = end + 1;
    } else {
      let j = i;
      while (j < text.length && !/[\s()";]/.test(text[j]!)) j += 1;
      stack.at(-1)!.push({ kind: 'symbol', value: text.slice(i, j) });
      i = j;
    }
  }
  if (stack.length !== 1) throw new Error('unbalanced (');
  return top;
}

/** What a question is about. */
export interface Query {
  operation: string;
  path?: string;
  vnode?: 'REGULAR-FILE' | 'DIRECTORY' | 'CHARACTER-DEVICE';
  remote?: { host: string; port: number };
}

interface Rule {
  action: 'allow' | 'deny';
  operations: string[];
  filters: Node[];
}

/** Filters that only apply to operations the tests never ask about. */
const UNMODELLED = new Set([
  'global-name',
  'global-name-prefix',
  'sysctl-name',
  'sysctl-name-prefix',
  'iokit-registry-entry-class',
  'iokit-user-client-class',
  'target',
  'socket-domain',
  'socket-protocol',
  'local',
  'appleevent-destination',
]);

const symbol = (node: Node | undefined) => (node?.kind === 'symbol' ? node.value : undefined);
const stringOf = (node: Node | undefined): string => {
  if (node?.kind !== 'string') throw new Error('expected a string');
  return node.value;
};

function matches(filter: Node, query: Query): boolean {
  if (filter.kind !== 'list') throw new Error(`unexpected ${filter.kind} where a filter belongs`);
  const [head, ...args] = filter.items;
  const name = symbol(head);
  switch (name) {
    case 'subpath': {
      const base = stringOf(args[0]);
      return query.path !== undefined && (base === '/' || query.path === base || query.path.startsWith(`${base}/`));
    }
    case 'literal':
      return query.path === stringOf(args[0]);
    case 'regex':
    case 'path-regex':
      return query.path !== undefined && new RegExp(stringOf(args[0])).test(query.path);
    case 'require-all':
      return args.every((arg) => matches(arg, query));
    case 'require-any':
      return args.some((arg) => matches(arg, query));
    case 'require-not':
      return !matches(args[0]!, query);
    case 'vnode-type':
      return query.vnode === symbol(args[0]);
    case 'remote': {
      const kind = symbol(args[0]);
      if (kind !== 'ip') return false; // unix sockets: never asked here
      const spec = stringOf(args[1]);
      const [host, port] = spec.split(':') as [string, string];
      if (!query.remote) return false;
      const hostOk = host === '*' || (host === 'localhost' && ['127.0.0.1', '::1', 'localhost'].includes(query.remote.host));
      const portOk = port === '*' || Number(port) === query.remote.port;
      return hostOk && portOk;
    }
    default:
      if (name && UNMODELLED.has(name)) return false;
      throw new Error(`the evaluator does not know the filter ${name}`);
  }
}

/** A profile, ready for questions. */
export class SbplProfile {
  private readonly rules: Rule[] = [];
  private readonly fallback: 'allow' | 'deny';

  constructor(text: string) {
    let fallback: 'allow' | 'deny' | undefined;
    for (const form of parseSbpl(text)) {
      if (form.kind !== 'list') continue;
      const head = symbol(form.items[0]);
      if (head === 'version') continue;
      if (head !== 'allow' && head !== 'deny') throw new Error(`unknown top-level form ${head}`);
      const operations: string[] = [];
      const filters: Node[] = [];
      for (const item of form.items.slice(1)) {
        if (item.kind === 'symbol') operations.push(item.value);
        else if (item.kind === 'list' && symbol(item.items[0]) === 'with') continue;
        else filters.push(item);
      }
      if (operations.includes('default')) {
        fallback = head;
        continue;
      }
      this.rules.push({ action: head, operations, filters });
    }
    if (!fallback) throw new Error('the profile has no default rule');
    this.fallback = fallback;
  }

  /** The decision for one question: the operation's own rules, then its wildcards' (longest first), then the default. */
  decide(query: Query): 'allow' | 'deny' {
    const levels = new Map<number, Rule[]>();
    for (const rule of this.rules) {
      // A rule naming the operation itself and its wildcard counts at the operation's own level.
      let level: number | undefined;
      for (const operation of rule.operations) {
        if (operation === query.operation) level = Number.MAX_SAFE_INTEGER;
        else if (operation.endsWith('*') && query.operation.startsWith(operation.slice(0, -1))) level = Math.max(level ?? 0, operation.length);
      }
      if (level !== undefined) levels.set(level, [...(levels.get(level) ?? []), rule]);
    }
    for (const level of [...levels.keys()].sort((a, b) => b - a)) {
      const hit = levels
        .get(level)!
        .filter((rule) => rule.filters.length === 0 || rule.filters.some((filter) => matches(filter, query)))
        .at(-1);
      if (hit) return hit.action;
    }
    return this.fallback;
  }

  mayRead(path: string): boolean {
    return this.decide({ operation: 'file-read-data', path, vnode: 'REGULAR-FILE' }) === 'allow';
  }
  mayList(dir: string): boolean {
    return this.decide({ operation: 'file-read-data', path: dir, vnode: 'DIRECTORY' }) === 'allow';
  }
  mayStatFolder(dir: string): boolean {
    return this.decide({ operation: 'file-read-metadata', path: dir, vnode: 'DIRECTORY' }) === 'allow';
  }
  /** Change an existing file's content. */
  mayWrite(path: string): boolean {
    return this.decide({ operation: 'file-write-data', path, vnode: 'REGULAR-FILE' }) === 'allow';
  }
  /** Make a new file or folder here. */
  mayCreate(path: string): boolean {
    return this.decide({ operation: 'file-write-create', path, vnode: 'REGULAR-FILE' }) === 'allow';
  }
  /** Remove or rename what is here. */
  mayUnlink(path: string): boolean {
    return this.decide({ operation: 'file-write-unlink', path, vnode: 'REGULAR-FILE' }) === 'allow';
  }
  maySetSetuid(path: string): boolean {
    return this.decide({ operation: 'file-write-setugid', path, vnode: 'REGULAR-FILE' }) === 'allow';
  }
  mayConnect(host: string, port: number): boolean {
    return this.decide({ operation: 'network-outbound', remote: { host, port } }) === 'allow';
  }
}
