/**
 * The grant watcher on a real folder (real inotify): each change is
 * classified against what stood there before — created, modified (with the
 * size before), deleted, renamed (the two halves of a move matched), and a
 * file that stood at the destination replaced — while what was there at
 * start, Airlock's own doings (a file held aside, a placeholder), and what
 * lies in `.git` or `node_modules` are not reported.
 */
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GrantWatcher, type GrantChange } from '../../../electron/core/sandbox/grant-watch';

/** Waits (bounded) until `check` holds: the watcher acts on events, not on a clock. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i += 1) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never happened: ${what}`);
}

describe('GrantWatcher', () => {
  let root: string;
  let changes: GrantChange[];
  let watcher: GrantWatcher;
  const start = () => {
    watcher = new GrantWatcher([{ grant: '/as/granted', root }], (change) => changes.push(change));
    watcher.start();
  };
  const find = (kind: GrantChange['kind'], path: string) => changes.find((c) => c.kind === kind && (c.to ?? c.path) === path);

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'airlock-grant-watch-')));
    changes = [];
    writeFileSync(join(root, 'old.txt'), 'twelve bytes');
    writeFileSync(join(root, 'other.txt'), 'other');
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'sub', 'deep.txt'), 'deep');
    mkdirSync(join(root, 'node_modules', 'pkg'), { recursive: true });
    mkdirSync(join(root, '.git'));
  });
  afterEach(() => {
    watcher?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('reports nothing for what was there when it started, and watches within the scan’s bounds', () => {
    start();
    expect(changes).toEqual([]);
    // The root and sub/ — never node_modules or .git.
    expect(watcher.watchedFolders).toBe(2);
  });

  it('a new file is created (under the grant as granted); writing to one that was there is modified, with its size before', async () => {
    start();
    writeFileSync(join(root, 'new.txt'), 'n');
    appendFileSync(join(root, 'old.txt'), ' and more');
    await eventually(() => Boolean(find('created', join(root, 'new.txt')) && find('modified', join(root, 'old.txt'))), 'created and modified');
    expect(find('created', join(root, 'new.txt'))).toMatchObject({ grant: '/as/granted', size: 1 });
    expect(find('created', join(root, 'new.txt'))!.replaced).toBeUndefined();
    const modified = find('modified', join(root, 'old.txt'))!;
    expect(modified.before).toMatchObject({ size: 12, dir: false });
    expect(modified.size).toBeGreaterThan(12);
  });

  it('a deletion is reported with what was there; a move is one rename, within a folder or across', async () => {
    start();
    rmSync(join(root, 'old.txt'));
    renameSync(join(root, 'other.txt'), join(root, 'moved.txt'));
    renameSync(join(root, 'sub', 'deep.txt'), join(root, 'up.txt'));
    await eventually(() => changes.length >= 3, 'three changes');
    expect(find('deleted', join(root, 'old.txt'))).toMatchObject({ before: { size: 12 } });
    expect(find('renamed', join(root, 'moved.txt'))).toMatchObject({ path: join(root, 'other.txt'), before: { size: 5 } });
    expect(find('renamed', join(root, 'up.txt'))).toMatchObject({ path: join(root, 'sub', 'deep.txt') });
    expect(changes.filter((c) => c.kind === 'deleted')).toHaveLength(1);
  });

  it('a rename over a file that was there says so (replaced), as does a new file in its place', async () => {
    start();
    writeFileSync(join(root, 'draft.tmp'), 'x');
    await eventually(() => Boolean(find('created', join(root, 'draft.tmp'))), 'the draft');
    renameSync(join(root, 'draft.tmp'), join(root, 'old.txt'));
    await eventually(() => Boolean(find('renamed', join(root, 'old.txt'))), 'the rename');
    expect(find('renamed', join(root, 'old.txt'))).toMatchObject({ path: join(root, 'draft.tmp'), replaced: { size: 12 } });
    // Removed and made again at once (the filesystem may even give it the same inode number): a new file in its place.
    rmSync(join(root, 'other.txt'));
    writeFileSync(join(root, 'other.txt'), 'again');
    await eventually(() => changes.some((c) => c.kind === 'created' && c.path === join(root, 'other.txt')), 'the new other.txt');
    expect(changes.find((c) => c.kind === 'created' && c.path === join(root, 'other.txt'))?.replaced).toMatchObject({ size: 5 });
  });

  it('a folder made at run time is watched, and what is put in it reported; a removed folder is not reported as a path inside itself', async () => {
    start();
    mkdirSync(join(root, 'made'));
    writeFileSync(join(root, 'made', 'inside.txt'), 'i');
    await eventually(() => Boolean(find('created', join(root, 'made', 'inside.txt'))), 'the file inside');
    rmSync(join(root, 'sub'), { recursive: true });
    await eventually(() => Boolean(find('deleted', join(root, 'sub'))), 'sub deleted');
    expect(changes.some((c) => c.path === join(root, 'sub', 'sub'))).toBe(false);
  });

  it('ignores node_modules, the inside of .git, files Airlock held aside, and an empty placeholder at the root', async () => {
    start();
    writeFileSync(join(root, 'node_modules', 'pkg', 'index.js'), '');
    writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(root, '.envrc.airlock-held-20261205T010203'), '');
    mkdirSync(join(root, '.vscode'));
    writeFileSync(join(root, 'marker.txt'), 'm');
    await eventually(() => Boolean(find('created', join(root, 'marker.txt'))), 'the marker');
    // Only the marker (made, then written to).
    expect([...new Set(changes.map((c) => c.path))]).toEqual([join(root, 'marker.txt')]);
  });

  it('after close, reports nothing', async () => {
    start();
    watcher.close();
    writeFileSync(join(root, 'late.txt'), 'l');
    const probe = new GrantWatcher([{ grant: root, root }], () => {});
    probe.start();
    probe.close();
    expect(changes).toEqual([]);
  });
});
