/**
 * The words a user reads — README.md and every page under docs/ — are held
 * to the code and to each other:
 * - every local link leads somewhere: a file in the repository, and a
 *   `#anchor` to a heading of that page (GitHub's slugs);
 * - every `airlock …` command shown exists in the built command line's own
 *   help, with its subcommand and every `--option` it is shown with;
 * - no internal project word (issue and stop numbers, "room", "choke
 *   point", …) reaches a user; docs/architecture.md, for contributors, may
 *   say "room";
 * - no page is a wall: none over 400 lines, the README at most 150; each
 *   page under docs/ ends with links to its neighbours;
 * - the "See docs/…" pointers `airlock --help` and `airlock doctor` print
 *   lead to a page and heading that exist.
 * Needs the build (`npm test` builds first): the commands are checked
 * against `node bin/airlock.js --help` and `help COMMAND`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_DOCS, DOCTOR_DOCS } from '../../electron/cli/docs-pointers';

const REPO = resolve(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/airlock.js');

/**
 * Pages other branches are writing at the same time: links to them are
 * allowed before they arrive. Remove each from this list when it is merged.
 */
const ARRIVING = new Set<string>([]);

/** Team words a user must not meet, each with why it is refused. */
const INTERNAL_WORDS: ReadonlyArray<{ pattern: RegExp; allowedIn?: string[] }> = [
  { pattern: /\bissues? #?\d+/i }, // the project's issue numbers
  { pattern: /\bstops? #?\d+/i }, // the project's stops
  { pattern: /\bthis stop\b|\bstop['’]s\b/i },
  { pattern: /\brooms?\b/i, allowedIn: ['docs/architecture.md'] }, // the capability folders' team name
  { pattern: /\bchoke[- ]?points?\b/i },
  { pattern: /\bgroup commit\b/i },
  { pattern: /\bRunAsNode\b/i },
  { pattern: /\bwaves?\b/i },
  { pattern: /\bred[- ]team/i },
  { pattern: /\btask [A-Z]\b/ },
  { pattern: /\binvariant \d+/i },
  { pattern: /\bhot path\b/i },
  { pattern: /\b(?:first|second) pass\b/i },
  { pattern: /\b(?:TESTING|SECURITY|ARCHITECTURE|STYLE|UX|TECH-NOTES)\.md\b/ }, // the team's handbook, not in this repository
  { pattern: /\bhandbook\b/i },
  { pattern: /\bthe issue['’]s\b/i },
];

const pages = ['README.md', ...readdirSync(join(REPO, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const text = new Map(pages.map((page) => [page, readFileSync(join(REPO, page), 'utf8')]));

/** The page without its fenced code blocks (headings and links inside them are not headings or links). */
const prose = (page: string) => text.get(page)!.replace(/```[\s\S]*?```/g, '');

/** GitHub's anchor for a heading: markup dropped, lower case, punctuation dropped, each space a dash. */
function slug(title: string): string {
  return title
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(page: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of prose(page).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(match[1]!.trim());
    const count = seen.get(base) ?? 0;
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return anchors;
}

/** Where a link from `page` leads, repository-relative, and its anchor; undefined for links off this repository. */
function target(page: string, href: string): { file: string; anchor?: string } | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined;
  const [path, anchor] = href.split('#') as [string, string | undefined];
  const file = path === '' ? page : normalize(relative(REPO, resolve(REPO, dirname(page), decodeURI(path))));
  return { file, anchor };
}

function brokenLinks(page: string, allowArriving: boolean): string[] {
  const broken: string[] = [];
  for (const match of prose(page).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const href = match[1]!;
    const to = target(page, href);
    if (!to) continue;
    if (allowArriving && ARRIVING.has(to.file) && !existsSync(join(REPO, to.file))) continue;
    if (!existsSync(join(REPO, to.file))) {
      broken.push(`${page}: ${href} (no such file)`);
      continue;
    }
    if (to.anchor && to.file.endsWith('.md') && !anchorsOf(to.file).has(to.anchor)) broken.push(`${page}: ${href} (no such heading)`);
  }
  return broken;
}

describe('every page: links', () => {
  it.each(pages)('%s: every local link and image leads to a file, and every #anchor to a heading', (page) => {
    expect(brokenLinks(page, true)).toEqual([]);
  });

  it('the check can fail: a link to a missing file or heading is found', () => {
    text.set('docs/__probe.md', '# Probe\n\n[gone](nowhere.md) [no heading](permissions.md#no-such-heading) [fine](permissions.md#who-asks) [arriving](importing.md)\n');
    try {
      expect(brokenLinks('docs/__probe.md', true)).toEqual(['docs/__probe.md: nowhere.md (no such file)', 'docs/__probe.md: permissions.md#no-such-heading (no such heading)']);
    } finally {
      text.delete('docs/__probe.md');
    }
  });

  it('every page under docs/ is reachable from the README or the docs index', () => {
    const linked = new Set(
      ['README.md', 'docs/README.md'].flatMap((page) => [...prose(page).matchAll(/\]\(([^)\s#]+)/g)].map((match) => target(page, match[1]!)?.file)),
    );
    expect(pages.filter((page) => page.startsWith('docs/') && page !== 'docs/README.md' && !linked.has(page))).toEqual([]);
  });
});

describe('every page: words for users', () => {
  function internalWords(page: string, body: string): string[] {
    // File names and paths in code are names, not words: `test/core/calls/choke-point.test.ts` stays as it is.
    const withoutPaths = body.replace(/`[^`\n]*(?:\/|\.(?:ts|mjs|js|json|md))[^`\n]*`/g, '`…`');
    return INTERNAL_WORDS.filter(({ pattern, allowedIn }) => !allowedIn?.includes(page) && pattern.test(withoutPaths)).map(({ pattern }) => `${page}: ${withoutPaths.match(pattern)![0]}`);
  }

  it.each(pages)('%s says no internal project word', (page) => {
    expect(internalWords(page, text.get(page)!)).toEqual([]);
  });

  it('the list catches what the old pages said', () => {
    const old = 'after this stop’s changes, issue 15 and stop 19; the choke point (its room) uses group commit; no RunAsNode fuse';
    expect(internalWords('docs/x.md', old)).toHaveLength(7);
    expect(internalWords('docs/architecture.md', 'how to add a room')).toEqual([]);
  });
});

describe('every page: length and shape', () => {
  it.each(pages)('%s is under 400 lines', (page) => {
    expect(text.get(page)!.split('\n').length).toBeLessThanOrEqual(400);
  });

  it('the README is the front door: at most 150 lines', () => {
    expect(text.get('README.md')!.split('\n').length).toBeLessThanOrEqual(150);
  });

  it.each(pages.filter((page) => page.startsWith('docs/')))('%s starts with its title and what it is for, and ends with links to its neighbours', (page) => {
    const lines = text.get(page)!.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^# \S/);
    expect(lines.slice(1).find((line) => line.trim() !== '')).toMatch(/^[A-Z*]/);
    expect(lines.at(-1)).toMatch(/^(Next|Back to):? .*\]\([^)]+\.md\)/);
  });
});

/** The built command line's help: the commands, each command's subcommands and options. */
interface Help {
  options: Set<string>;
  commands: Map<string, { options: Set<string>; subcommands: Map<string, Set<string>> }>;
}

/** At most this many `airlock` processes at once: the machine's cores are shared. */
const AT_ONCE = 4;
let running = 0;
const waiting: Array<() => void> = [];

async function run(args: string[]): Promise<string> {
  if (running >= AT_ONCE) await new Promise<void>((wake) => waiting.push(wake));
  running += 1;
  try {
    return await runNow(args);
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

function runNow(args: string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', COLUMNS: '200' } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolvePromise(out) : reject(new Error(`airlock ${args.join(' ')} exited ${code}: ${out}`))));
  });
}

const optionsIn = (help: string) => new Set([...help.matchAll(/(?:^|[\s,])(--[a-z][a-z-]*)/gm)].map((match) => match[1]!));
function commandsIn(help: string): string[] {
  const section = help.split(/^Commands:$/m)[1]?.split(/^\S/m)[0] ?? '';
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)(?=[\s|])/gm)].map((match) => match[1]!);
}

/** Every `airlock …` shown in code: in fenced blocks and inline code spans. */
function shownCommands(page: string): string[][] {
  const body = text.get(page)!;
  const code = [...body.matchAll(/```[\s\S]*?```/g)].map((match) => match[0]);
  const inline = [...body.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);
  const shown: string[][] = [];
  for (const piece of [...code, ...inline]) {
    for (const line of piece.split('\n')) {
      // (A line of output that lists an entry named airlock, "airlock  – …", is not a command.)
      for (const match of line.matchAll(/(?:^|[\s($])airlock[ \t]+(?!–)(\S.*)$/g)) shown.push(match[1]!.split(/\s+/));
    }
  }
  return shown;
}

const GLOBAL_WITH_VALUE = new Set(['--data-dir']);
const placeholder = (token: string) => token === '…' || token === '...' || /^[[<A-Z]/.test(token);
const cleanOption = (token: string) => token.replace(/^[([]+/, '').replace(/[=,;:)\]].*$/, '');

/** The words after `airlock` once the global options before the command are skipped. */
function withoutGlobalOptions(tokens: string[]): string[] {
  let rest = [...tokens];
  while (rest[0]?.startsWith('-')) rest = rest.slice(GLOBAL_WITH_VALUE.has(rest[0]) ? 2 : 1);
  return rest;
}

function problemsWith(tokens: string[], help: Help): string[] {
  const rest = withoutGlobalOptions(tokens);
  const [first, second] = rest;
  if (!first || placeholder(first)) return [];
  const problems: string[] = [];
  const names = first.split('|');
  for (const name of names) if (!help.commands.has(name)) problems.push(`no command "${name}"`);
  if (problems.length || names.length > 1) return problems;
  const command = help.commands.get(first)!;
  let known = new Set([...help.options, ...command.options, ...[...command.subcommands.values()].flatMap((options) => [...options])]);
  if (command.subcommands.size && second && /^[a-z][a-z|-]*$/.test(second)) {
    for (const sub of second.split('|')) {
      if (!command.subcommands.has(sub)) problems.push(`no subcommand "${first} ${sub}"`);
      else if (!second.includes('|')) known = new Set([...help.options, ...command.options, ...command.subcommands.get(sub)!]);
    }
  }
  const beforeDashes = rest.indexOf('--') < 0 ? rest : rest.slice(0, rest.indexOf('--'));
  for (const token of beforeDashes.map(cleanOption).filter((token) => /^--[a-z]/.test(token))) {
    if (!known.has(token)) problems.push(`no option ${token} for "${first}${second && command.subcommands.has(second) ? ` ${second}` : ''}"`);
  }
  return problems;
}

describe('every `airlock …` shown is a real command', () => {
  const help: Help = { options: new Set(), commands: new Map() };

  beforeAll(async () => {
    expect(existsSync(join(REPO, 'out/main/cli.js')), 'build first: npx electron-vite build').toBe(true);
    const top = await run(['--help']);
    help.options = optionsIn(top.split(/^Commands:$/m)[0]!);
    const used = new Set(pages.flatMap((page) => shownCommands(page).map((tokens) => withoutGlobalOptions(tokens)[0])));
    await Promise.all(
      commandsIn(top).map(async (name) => {
        if (!used.has(name) || name === 'help') {
          help.commands.set(name, { options: new Set(), subcommands: new Map() });
          return;
        }
        const own = await run(['help', name]);
        const subcommands = new Map<string, Set<string>>();
        await Promise.all(commandsIn(own).filter((sub) => sub !== 'help').map(async (sub) => subcommands.set(sub, optionsIn(await run([name, sub, '--help'])))));
        help.commands.set(name, { options: optionsIn(own.split(/^Commands:$/m)[0]!), subcommands });
      }),
    );
  }, 240_000);

  it.each(pages)('%s', (page) => {
    expect(shownCommands(page).flatMap((tokens) => problemsWith(tokens, help).map((problem) => `airlock ${tokens.join(' ')}: ${problem}`))).toEqual([]);
  });

  it('the check can fail: an unknown command, subcommand or option is found', () => {
    expect(problemsWith(['frobnicate', 'x'], help)).toEqual(['no command "frobnicate"']);
    expect(problemsWith(['audit', 'verfy'], help)).toEqual(['no subcommand "audit verfy"']);
    expect(problemsWith(['add', 'x', '--nmp', 'pkg'], help)).toEqual(['no option --nmp for "add"']);
    expect(problemsWith(['--data-dir', '/tmp/x', 'add', 'x', '--npm', 'pkg', '--', 'node', '--import', 'y'], help)).toEqual([]);
  });
});

describe('the pointers the command line prints', () => {
  const pointers = [...Object.values(COMMAND_DOCS), ...Object.values(DOCTOR_DOCS).map((line) => line.match(/See (\S+?)\.?(?: |$)/)![1]!), 'docs/command-line.md'];

  it.each(pointers)('%s leads to a page and heading that exist', (pointer) => {
    text.set('__pointer.md', `[pointer](${pointer})`);
    try {
      expect(brokenLinks('__pointer.md', true)).toEqual([]);
    } finally {
      text.delete('__pointer.md');
    }
  });

  it('`airlock --help` ends with the command-line page, and a command with the page of its topic', async () => {
    expect(await run(['--help'])).toContain('See docs/command-line.md for every command, its options and exit codes.');
    expect(await run(['help', 'audit'])).toContain(`See ${COMMAND_DOCS.audit}.`);
  });
});
