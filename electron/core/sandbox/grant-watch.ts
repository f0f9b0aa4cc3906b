/**
 * What a server changes in the folders it may write, as it happens — the
 * evidence Airlock sets against a tool's claims (claims/). The same
 * machinery and bounds as the trusted-files watcher (trusted-files.ts): the
 * grant walked once at start by `scanGrant` (at most `SCAN_LIMITS` folders,
 * `depth` levels, never into `.git` or `node_modules`), one watch per
 * folder, folders made at run time watched as they appear.
 *
 * Each change is classified against what the watcher last saw there (the
 * inode, size, and since when it was there): created, modified (the same
 * file, written in place), deleted, renamed (the two halves of a move,
 * matched by inode) — and whether a file that stood there was replaced.
 * A move away and a move in arrive in the same batch of events; a
 * disappearance waits for the end of its batch (`settle()`) before it is
 * called a deletion.
 *
 * What it cannot see: reads (no event), who made a change (a change the
 * person makes in the folder is seen the same way), changes past its
 * bounds, inside `.git` or `node_modules`, and a rewrite in place that left
 * the file as long as it was can only be told from an append by its size.
 */
import { lstatSync, readdirSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { isAtOrUnder } from './bwrap-argv';
import { ROOT_PLACEHOLDER_DIRS, SCAN_LIMITS, SKIPPED_FOLDERS, TRUSTED_NAMES, scanGrant } from './trusted-files';

/** What stood at a path, as the watcher last saw it. */
export interface SeenEntry {
  size: number;
  dir: boolean;
  /** When the watcher first saw it there (`performance.now()`); the start of the watch for what was there then. */
  since: number;
}

/** One change in a write grant. */
export interface GrantChange {
  /** The grant it happened in, as the person granted it. */
  grant: string;
  kind: 'created' | 'modified' | 'deleted' | 'renamed';
  /** Where it happened (for a rename: where it was). */
  path: string;
  /** For a rename: where it went. */
  to?: string;
  /** What stood at `path` before (deleted, modified, renamed); absent when the watcher had not seen it. */
  before?: SeenEntry;
  /** What stood at the destination (`to`, or `path` when created) and was replaced by this. */
  replaced?: SeenEntry;
  /** Its size now (absent when it is gone). */
  size?: number;
  /** When the watcher saw it (`performance.now()`). */
  at: number;
}

/** Entries remembered across the whole watch (beyond, a new file's deletion is not known to be one of a file that was there). */
export const MAX_SEEN_ENTRIES = 50_000;

interface Seen extends SeenEntry {
  ino: number;
}

/** Names the watcher never reports: what Airlock itself does in a grant (a planted file held aside). */
const AIRLOCK_OWN = /\.airlock-held-\d{8}T\d{6}/;

const lstat = (path: string): Stats | undefined => {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
};

/**
 * Watches one launch's write grants and reports every change in them to
 * `onChange`. `roots` pairs each grant as granted with where it resolves.
 */
export class GrantWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  /** By folder, then name: what stood there as last seen. */
  private readonly seen = new Map<string, Map<string, Seen>>();
  private seenCount = 0;
  /** Disappearances of this batch, not yet called deletions (the first half of a move, maybe). */
  private gone: Array<{ path: string; grant: string; entry: Seen; at: number }> = [];
  private settleScheduled = false;
  private closed = false;
  private full = false;
  private seenFull = false;

  constructor(
    private readonly roots: ReadonlyArray<{ grant: string; root: string }>,
    private readonly onChange: (change: GrantChange) => void,
    private readonly onNote: (text: string) => void = () => {},
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Walks the grants (within the scan's bounds) and starts watching; what is there now is the baseline. */
  start(): void {
    for (const { root } of this.roots) {
      for (const folder of scanGrant(root).folders) this.watchFolder(folder, false);
    }
  }

  /** How many folders it watches (the bench and tests read it). */
  get watchedFolders(): number {
    return this.watchers.size;
  }

  /**
   * Calls every disappearance of the batch so far a deletion (no matching
   * move-in came). Called at the end of each batch, and by whoever needs the
   * changes so far (a call that just ended).
   */
  settle(): void {
    const gone = this.gone;
    this.gone = [];
    for (const item of gone) this.onChange({ grant: item.grant, kind: 'deleted', path: item.path, before: publicEntry(item.entry), at: item.at });
  }

  close(): void {
    this.closed = true;
    this.gone = [];
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.seen.clear();
  }

  private grantOf(path: string): { grant: string; root: string } | undefined {
    return this.roots.find(({ root }) => isAtOrUnder(path, root));
  }

  private watchFolder(folder: string, found: boolean): void {
    if (this.closed || this.watchers.has(folder)) return;
    if (this.watchers.size >= SCAN_LIMITS.folders) {
      if (!this.full) this.onNote(`Airlock watches at most ${SCAN_LIMITS.folders} folders of a server's write grants for what its tools change; changes beyond them are not set against its tools' claims.`);
      this.full = true;
      return;
    }
    let watcher: FSWatcher;
    try {
      watcher = watch(folder, { persistent: false }, (event, name) => {
        if (name) this.check(folder, name.toString(), event);
      });
    } catch (error) {
      // Gone meanwhile — or out of inotify watches or descriptors: then say so once.
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'ENOSPC' || code === 'EMFILE') && !this.full) {
        this.full = true;
        this.onNote(`Airlock could not watch every folder of this server's write grants (${code}: the system's limit on watched folders); changes in the others are not set against its tools' claims.`);
      }
      return;
    }
    watcher.on('error', () => {
      watcher.close();
      this.watchers.delete(folder);
    });
    this.watchers.set(folder, watcher);
    const names = this.seen.get(folder) ?? new Map<string, Seen>();
    this.seen.set(folder, names);
    let listing: string[];
    try {
      listing = readdirSync(folder);
    } catch {
      return; // gone meanwhile
    }
    for (const name of listing) {
      // A folder made at run time: what is in it was made since (reported); at start, the baseline.
      if (found) this.check(folder, name, 'rename');
      else {
        const info = lstat(join(folder, name));
        if (info) this.remember(names, name, info, this.now());
      }
    }
  }

  private remember(names: Map<string, Seen>, name: string, info: Stats, since: number): void {
    const had = names.get(name);
    if (!had && this.seenCount >= MAX_SEEN_ENTRIES) {
      if (!this.seenFull) this.onNote(`Airlock remembers at most ${MAX_SEEN_ENTRIES} files of a server's write grants; a deletion of one it does not remember is not known to be of a file that was there before.`);
      this.seenFull = true;
      return;
    }
    if (!had) this.seenCount += 1;
    names.set(name, { ino: info.ino, size: info.size, dir: info.isDirectory(), since });
  }

  private forget(names: Map<string, Seen>, name: string): void {
    if (names.delete(name)) this.seenCount -= 1;
  }

  private check(folder: string, name: string, event: string): void {
    if (this.closed || AIRLOCK_OWN.test(name)) return;
    const path = join(folder, name);
    const owner = this.grantOf(path);
    if (!owner) return;
    const names = this.seen.get(folder) ?? new Map<string, Seen>();
    this.seen.set(folder, names);
    const had = names.get(name);
    const info = lstat(path);
    const at = this.now();
    if (!info) {
      if (!had) {
        // The watched folder itself went (its parent's watch reports that): stop watching it.
        if (!lstat(folder)) return this.unwatch(folder);
        // Made and removed before Airlock looked: still a change (never a file that was there).
        if (event === 'rename') this.onChange({ grant: owner.grant, kind: 'deleted', path, at });
        return;
      }
      this.forget(names, name);
      this.gone.push({ path, grant: owner.grant, entry: had, at });
      this.scheduleSettle();
      return;
    }
    // Another launch's placeholder at the root (an empty .git, .vscode, .idea): Airlock's, not the server's.
    if (!had && folder === owner.root && ROOT_PLACEHOLDER_DIRS.includes(name) && info.isDirectory() && isEmpty(path)) {
      this.remember(names, name, info, at);
      return;
    }
    if (!had || had.ino !== info.ino) {
      let moved = this.takeGone(info);
      let replaced = had ? publicEntry(had) : undefined;
      // Gone and back under the same name (its inode number reused): a new file in the old one's place.
      if (moved && moved.path === path) {
        replaced ??= publicEntry(moved.entry);
        moved = undefined;
      }
      if (moved) this.onChange({ grant: owner.grant, kind: 'renamed', path: moved.path, to: path, before: publicEntry(moved.entry), ...(replaced ? { replaced } : {}), size: info.size, at });
      else this.onChange({ grant: owner.grant, kind: 'created', path, ...(replaced ? { replaced } : {}), size: info.size, at });
      this.remember(names, name, info, at);
      if (info.isDirectory()) this.watchNew(owner.root, path);
      return;
    }
    // The same entry: written in place (or its metadata changed). A folder's own changes are its entries'.
    if (info.isDirectory()) return;
    if (event === 'rename') {
      // A name event for a file that is still the same inode: it was removed and made again, and the
      // filesystem gave the new file the old one's inode number — a new file in its place.
      this.onChange({ grant: owner.grant, kind: 'created', path, replaced: publicEntry(had), size: info.size, at });
      names.set(name, { ino: info.ino, size: info.size, dir: false, since: at });
      return;
    }
    this.onChange({ grant: owner.grant, kind: 'modified', path, before: publicEntry(had), size: info.size, at });
    names.set(name, { ...had, size: info.size });
  }

  private unwatch(folder: string): void {
    this.watchers.get(folder)?.close();
    this.watchers.delete(folder);
    const names = this.seen.get(folder);
    if (names) this.seenCount -= names.size;
    this.seen.delete(folder);
  }

  /** The matching first half of a move in this batch (same inode), taken off the list. */
  private takeGone(info: Stats): { path: string; entry: Seen } | undefined {
    const index = this.gone.findIndex((item) => item.entry.ino === info.ino && item.entry.dir === info.isDirectory());
    if (index < 0) return undefined;
    const [item] = this.gone.splice(index, 1);
    return item;
  }

  private watchNew(root: string, path: string): void {
    const name = basename(path);
    if (TRUSTED_NAMES.has(name) || SKIPPED_FOLDERS.has(name)) return;
    if (relative(root, path).split(sep).length <= SCAN_LIMITS.depth) this.watchFolder(path, true);
  }

  private scheduleSettle(): void {
    if (this.settleScheduled) return;
    this.settleScheduled = true;
    // The end of this batch of events: a move's second half arrives in the same one.
    setImmediate(() => {
      this.settleScheduled = false;
      if (!this.closed) this.settle();
    });
  }
}

function publicEntry(entry: Seen): SeenEntry {
  return { size: entry.size, dir: entry.dir, since: entry.since };
}

function isEmpty(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0;
  } catch {
    return false;
  }
}
