/**
 * Files that programs on the host run or trust are not writable inside a
 * write grant. A sandbox that cannot write outside a folder can still write
 * *into* it what runs later, unconfined, when the person uses that folder:
 * a `.git` whose config sets `core.fsmonitor` (the next `git status`, or the
 * shell prompt, runs it), `.git/commondir` pointing at a config of its own,
 * hooks, `.envrc`, editor task files, `.npmrc`, shell start-up files.
 *
 * bubblewrap can only mount over something that exists, and a seccomp
 * filter cannot read paths, so protection comes in three layers:
 *
 * 1. What exists when the server starts (the grant itself, and repositories
 *    and trusted files found below it, within bounds) is bound read-only:
 *    the server can neither change nor replace it (EROFS, EBUSY).
 * 2. What does not exist yet but must not be created is pre-created by
 *    Airlock as a placeholder the host's tools read as harmless, and bound
 *    read-only: an empty `.git`, `.vscode`, `.idea` at the grant's root (an
 *    empty `.git` is not a repository to git, which keeps looking above);
 *    inside an existing repository, empty `hooks/`, `info/`, `modules/`,
 *    `worktrees/`, an empty `config.worktree`, and `commondir` containing
 *    `.` (git reads it as "this folder": an empty one would break git for the
 *    person while the server runs). Placeholders go away when the server
 *    stops, if they are still placeholders and no other sandbox uses them.
 * 3. What cannot be prevented — a file such as `.envrc` or `.npmrc` appearing
 *    at the root (a placeholder file would show in the person's `git
 *    status`), or a repository (`.git`, or a bare one) planted in a folder
 *    made at run time — is detected and held aside (renamed to
 *    `<name>.airlock-held-<time>`): by a watcher while the server runs, and
 *    by a sweep when it stops (and, after a crash, at the next start).
 *    The person is told where.
 *
 * The person may still let a server change one of these (a git server that
 * commits): `filesystem.writeTrusted` names such paths; nothing at or under
 * them is protected.
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmdirSync, unlinkSync, watch, writeFileSync, type FSWatcher, type Stats } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { isAtOrUnder } from './bwrap-argv';

/** Folders pre-created (empty) and bound read-only at a grant's root when absent. */
export const ROOT_PLACEHOLDER_DIRS: readonly string[] = ['.git', '.vscode', '.idea'];

/** Names host tools run or trust: bound read-only wherever they exist in a grant (within the scan's bounds). */
export const TRUSTED_NAMES: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.envrc',
  '.vscode',
  '.idea',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.gitmodules',
  '.gitattributes',
  '.gitconfig',
  '.hgrc',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.mcp.json',
  '.ripgreprc',
]);

/** Names that make a host tool run code just by entering a folder (a git prompt, direnv): held aside wherever they appear. */
export const HELD_ANYWHERE: ReadonlySet<string> = new Set(['.git', '.hg', '.envrc']);

/** Inside an existing repository: what makes git run code or read another config. */
const GIT_DIR_PROTECTED_DIRS = ['hooks', 'info', 'modules', 'worktrees'];
const GIT_DIR_PROTECTED_FILES = ['config', 'config.worktree', 'commondir'];
/** `commondir` placeholder content: "the common dir is this one" — what git assumes without the file. */
export const COMMONDIR_PLACEHOLDER = '.\n';

/** How far the scan looks below a grant (it runs at every start: kept cheap). */
export const SCAN_LIMITS = { depth: 5, folders: 4000 } as const;
/** Folders never scanned or watched (dependencies; their dotfiles are not the person's). */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['node_modules']);

/** A placeholder Airlock made; removed after the run if it is still exactly this. */
export interface Placeholder {
  path: string;
  kind: 'dir' | 'empty-file' | 'commondir';
  /** Its inode when made (a same-named entry made later is not Airlock's). */
  ino: number;
}

/** What protecting one launch's grants takes: bwrap options, placeholders made, and the trusted entries that were there. */
export interface TrustedFilesPlan {
  /** `--ro-bind P P` pairs, appended after sandbox-runtime's mounts. */
  mounts: string[];
  placeholders: Placeholder[];
  /** Trusted entries present at start (path → inode), by grant root. */
  baseline: Array<[string, number]>;
  /** The roots protected (write grants, minus those the person exempted). */
  roots: string[];
  /** Folders found by the scan (for the watcher). */
  folders: string[];
}

const isGitDir = (dir: string): boolean => {
  try {
    return lstatSync(join(dir, 'HEAD')).isFile() && lstatSync(join(dir, 'objects')).isDirectory() && lstatSync(join(dir, 'refs')).isDirectory();
  } catch {
    return false;
  }
};

const lstat = (path: string): Stats | undefined => {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
};

interface ScanResult {
  /** Trusted entries (files, folders, symlinks) found, with their inodes. */
  entries: Map<string, number>;
  /** Repositories found: `.git` folders, and folders that are bare repositories. */
  gitDirs: string[];
  folders: string[];
}

/** Walks a grant within `SCAN_LIMITS`, never following a symlink, for trusted entries and repositories. */
export function scanGrant(root: string, exempt: readonly string[] = []): ScanResult {
  const result: ScanResult = { entries: new Map(), gitDirs: [], folders: [] };
  const queue: Array<[string, number]> = [[root, 0]];
  while (queue.length > 0 && result.folders.length < SCAN_LIMITS.folders) {
    const [dir, depth] = queue.shift()!;
    if (exempt.some((path) => isAtOrUnder(dir, path))) continue;
    result.folders.push(dir);
    if (dir !== root && isGitDir(dir)) result.gitDirs.push(dir);
    let names: import('node:fs').Dirent[];
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of names) {
      const path = join(dir, entry.name);
      if (exempt.some((p) => isAtOrUnder(path, p))) continue;
      if (TRUSTED_NAMES.has(entry.name)) {
        const info = lstat(path);
        if (info) result.entries.set(path, info.ino);
        // A real repository is protected by its parts (git itself writes the rest); an
        // empty `.git` (another sandbox's placeholder) is bound read-only whole.
        if (entry.name === '.git' && entry.isDirectory() && isGitDir(path)) result.gitDirs.push(path);
        continue; // never descend into a trusted folder
      }
      if (entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name) && depth < SCAN_LIMITS.depth) queue.push([path, depth + 1]);
    }
  }
  return result;
}

/**
 * Plans the protection of `roots` (canonical write grants). Creates the
 * placeholders it needs on the host and reports each one to `made` as it
 * goes (so the caller can undo them if this throws half-way). Paths under
 * `exempt` (the person's explicit `writeTrusted`) are left alone.
 */
export function planTrustedFiles(roots: readonly string[], exempt: readonly string[], made: (placeholder: Placeholder) => void = () => {}): TrustedFilesPlan {
  const plan: TrustedFilesPlan = { mounts: [], placeholders: [], baseline: [], roots: [], folders: [] };
  const bound = new Set<string>();
  const bind = (path: string) => {
    if (bound.has(path)) return;
    bound.add(path);
    plan.mounts.push('--ro-bind', path, path);
  };
  const placeholder = (path: string, kind: Placeholder['kind']) => {
    if (exempt.some((p) => isAtOrUnder(path, p))) return;
    try {
      if (kind === 'dir') mkdirSync(path, { mode: 0o755 });
      else writeFileSync(path, kind === 'commondir' ? COMMONDIR_PLACEHOLDER : '', { mode: 0o444, flag: 'wx' });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Made meanwhile (by the person, or another launch): it exists, so it is protected as it is.
      if (code === 'EEXIST') return bind(path);
      // A folder Airlock's own user cannot write (the server, the same user, cannot create it either), or a grant that is a file.
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOTDIR') return;
      throw error;
    }
    const made_ = { path, kind, ino: lstatSync(path).ino };
    plan.placeholders.push(made_);
    made(made_);
    bind(path);
  };
  for (const root of roots) {
    if (exempt.some((path) => isAtOrUnder(root, path))) continue;
    plan.roots.push(root);
    const scan = scanGrant(root, exempt);
    plan.folders.push(...scan.folders);
    for (const [path, ino] of scan.entries) plan.baseline.push([path, ino]);
    // The grant root itself as a bare repository (HEAD, objects/, refs/, config).
    if (isGitDir(root)) scan.gitDirs.push(root);
    // Repositories that were there (bare ones included) are the person's: recorded, not held.
    for (const gitDir of scan.gitDirs) plan.baseline.push([gitDir, lstat(gitDir)?.ino ?? 0]);
    for (const gitDir of scan.gitDirs) {
      for (const name of GIT_DIR_PROTECTED_DIRS) {
        const path = join(gitDir, name);
        const info = lstat(path);
        if (!info) placeholder(path, 'dir');
        else if (!info.isSymbolicLink()) bind(path);
      }
      for (const name of GIT_DIR_PROTECTED_FILES) {
        const path = join(gitDir, name);
        const info = lstat(path);
        if (!info) {
          if (name === 'commondir') placeholder(path, 'commondir');
          else if (name === 'config.worktree') placeholder(path, 'empty-file');
        } else if (!info.isSymbolicLink()) bind(path);
      }
    }
    // Every other trusted entry found: read-only (a symlink is watched instead; a mount would land on its target).
    for (const [path] of scan.entries) {
      const info = lstat(path);
      if (!info || info.isSymbolicLink()) continue;
      if (scan.gitDirs.includes(path)) continue; // its parts are protected above; the rest of it git itself writes
      bind(path);
    }
    for (const name of ROOT_PLACEHOLDER_DIRS) {
      const path = join(root, name);
      if (!lstat(path)) placeholder(path, 'dir');
    }
  }
  return plan;
}

/** Whether `path`'s entry is still what Airlock made (so removing it loses nothing of the person's). */
export function isStillPlaceholder(placeholder: Placeholder): boolean {
  const info = lstat(placeholder.path);
  if (!info || info.isSymbolicLink() || info.ino !== placeholder.ino) return false;
  try {
    if (placeholder.kind === 'dir') return info.isDirectory() && readdirSync(placeholder.path).length === 0;
    if (!info.isFile() || info.nlink !== 1) return false;
    const text = readFileSync(placeholder.path, 'utf8');
    return placeholder.kind === 'commondir' ? text === COMMONDIR_PLACEHOLDER : text === '';
  } catch {
    return false;
  }
}

/** Removes a placeholder if it is still one. */
export function removePlaceholder(placeholder: Placeholder): void {
  if (!isStillPlaceholder(placeholder)) return;
  try {
    if (placeholder.kind === 'dir') rmdirSync(placeholder.path);
    else unlinkSync(placeholder.path);
  } catch {
    // gone already, or filled meanwhile: leave it
  }
}

/**
 * Renames `path` (inside `root`) to `<name>.airlock-held-<time>`, walking from
 * the root one folder at a time without following a symlink, so a server
 * that swaps a folder for a link meanwhile cannot make Airlock rename
 * something outside the grant. Returns the new path, or undefined if the
 * entry could not be held (gone, or the walk met a symlink).
 */
export function holdAside(root: string, path: string, now: Date = new Date()): string | undefined {
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith('..')) return undefined;
  const parts = rel.split(sep);
  const name = parts.pop()!;
  const fds: number[] = [];
  try {
    let fd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
    fds.push(fd);
    for (const part of parts) {
      fd = openSync(`/proc/self/fd/${fd}/${part}`, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      fds.push(fd);
    }
    const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
    let held = `${name}.airlock-held-${stamp}`;
    for (let n = 2; lstat(`/proc/self/fd/${fd}/${held}`); n += 1) held = `${name}.airlock-held-${stamp}-${n}`;
    renameSync(`/proc/self/fd/${fd}/${name}`, `/proc/self/fd/${fd}/${held}`);
    return join(dirname(path), held);
  } catch {
    return undefined;
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}

/** What a sweep or the watcher held aside, for the person. */
export interface HeldEntry {
  path: string;
  heldAt: string;
}

/** Airlock's own placeholders (path → inode), as a watcher or sweep asks about them. */
export interface PlaceholderLookup {
  get(path: string): number | undefined;
}

/** The parts that together make a folder a (bare) repository to git. */
const REPOSITORY_PARTS = new Set(['HEAD', 'objects', 'refs']);

/**
 * What to hold aside because of the entry at `path`, if the server planted
 * it (not there at start, not a placeholder): the entry itself, or — for a
 * bare repository made in a folder (HEAD, objects/, refs/, in any order) —
 * that folder's HEAD, which stops git from reading the folder as one.
 */
function plantedEntry(path: string, info: Stats, baseline: ReadonlyMap<string, number>, placeholders: PlaceholderLookup, root: string): string | undefined {
  // Airlock's own placeholder (the same inode: one removed and made again is not ours).
  if (placeholders.get(path) === info.ino) return undefined;
  const name = basename(path);
  if (REPOSITORY_PARTS.has(name)) {
    const repo = dirname(path);
    if (basename(repo) === '.git' || baseline.has(repo) || !isGitDir(repo)) return undefined;
    return join(repo, 'HEAD');
  }
  const atRoot = dirname(path) === root;
  const held = HELD_ANYWHERE.has(name) || (atRoot && TRUSTED_NAMES.has(name) && !info.isDirectory());
  if (!held || baseline.get(path) === info.ino) return undefined;
  return path;
}

/**
 * Looks through the grants (within the scan's bounds) for what a server
 * planted and holds it aside. Used when a server stops and, after a crash,
 * at the next start.
 */
export function sweepGrants(roots: readonly string[], baseline: ReadonlyMap<string, number>, placeholders: PlaceholderLookup, exempt: readonly string[]): HeldEntry[] {
  const held: HeldEntry[] = [];
  for (const root of roots) {
    const queue: Array<[string, number]> = [[root, 0]];
    let seen = 0;
    while (queue.length > 0 && seen < SCAN_LIMITS.folders) {
      const [dir, depth] = queue.shift()!;
      seen += 1;
      let names: import('node:fs').Dirent[];
      try {
        names = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of names) {
        const path = join(dir, entry.name);
        if (exempt.some((p) => isAtOrUnder(path, p))) continue;
        const info = lstat(path);
        if (!info) continue;
        const planted = plantedEntry(path, info, baseline, placeholders, root);
        if (planted) {
          const to = holdAside(root, planted);
          if (to) held.push({ path: planted, heldAt: to });
          if (planted === path) continue;
        }
        if (TRUSTED_NAMES.has(entry.name)) continue;
        if (entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name) && depth < SCAN_LIMITS.depth) queue.push([path, depth + 1]);
      }
    }
  }
  return held;
}

/**
 * Watches the grants while a server runs (one inotify watch per folder,
 * within the scan's bounds, folders made at run time included) and holds
 * aside what the server plants, as soon as it appears. The window left is
 * the time between the server's write and the watcher's rename
 * (milliseconds); the sweep at stop catches what the watcher could not
 * (past its bounds, or while Airlock was not running).
 */
export class TrustedFilesWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private closed = false;
  private full = false;

  constructor(
    private readonly roots: readonly string[],
    private readonly baseline: ReadonlyMap<string, number>,
    private readonly placeholders: PlaceholderLookup,
    private readonly exempt: readonly string[],
    private readonly onHeld: (entry: HeldEntry) => void,
    private readonly onNote: (text: string) => void,
  ) {}

  /** Starts watching the folders the scan found. */
  start(folders: readonly string[]): void {
    for (const folder of folders) this.watchFolder(folder);
  }

  close(): void {
    this.closed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private rootOf(path: string): string | undefined {
    return this.roots.find((root) => isAtOrUnder(path, root));
  }

  private watchFolder(folder: string): void {
    if (this.closed || this.watchers.has(folder)) return;
    if (this.watchers.size >= SCAN_LIMITS.folders) {
      if (!this.full) this.onNote(`Airlock watches at most ${SCAN_LIMITS.folders} folders of a grant while a server runs; the rest is checked when the server stops.`);
      this.full = true;
      return;
    }
    let watcher: FSWatcher;
    try {
      watcher = watch(folder, { persistent: false }, (_event, name) => {
        if (name) this.check(join(folder, name.toString()));
      });
    } catch (error) {
      // Gone meanwhile — or out of inotify watches or descriptors: then say so; the sweep at stop still covers it.
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'ENOSPC' || code === 'EMFILE') && !this.full) {
        this.full = true;
        this.onNote(`Airlock could not watch every folder of this server's grants (${code}: the system's limit on watched folders); what is not watched is checked when the server stops.`);
      }
      return;
    }
    watcher.on('error', () => {
      watcher.close();
      this.watchers.delete(folder);
    });
    this.watchers.set(folder, watcher);
    // Whatever appeared before the watch existed.
    try {
      for (const name of readdirSync(folder)) this.check(join(folder, name));
    } catch {
      // gone meanwhile
    }
  }

  private check(path: string): void {
    if (this.closed) return;
    const root = this.rootOf(path);
    if (!root || this.exempt.some((p) => isAtOrUnder(path, p))) return;
    const info = lstat(path);
    if (!info) return;
    const planted = plantedEntry(path, info, this.baseline, this.placeholders, root);
    if (planted) {
      const to = holdAside(root, planted);
      if (to) this.onHeld({ path: planted, heldAt: to });
      if (planted === path) return;
    }
    const name = basename(path);
    if (info.isDirectory() && !TRUSTED_NAMES.has(name) && !SKIPPED_FOLDERS.has(name)) {
      const depth = relative(root, path).split(sep).length;
      if (depth <= SCAN_LIMITS.depth) this.watchFolder(path);
    }
  }
}

/** What the person reads when Airlock held a planted entry aside. */
export function heldNote(entry: HeldEntry): string {
  return `A file that other programs trust appeared in a granted folder: ${entry.path}. Airlock moved it aside to ${entry.heldAt} (programs such as git or direnv would have run it outside the sandbox). If you made it yourself, rename it back.`;
}
