/**
 * Paths in the window are chosen with the system's picker as well as typed
 * (the shell's `dialog.showOpenDialog`; here a stand-in, as the core's
 * `pickFile` hook receives it), and a typed path that does not exist is
 * refused before it is saved, with what to do. Chromium over the real core,
 * with a real server.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FilePickPurpose } from '../../shared/ipc';
import { openRendererHost, REPO, waitForText, type RendererHost } from './renderer-support';

const ECHO = join(REPO, 'test/fixtures/servers/echo.mjs');

describe('choosing paths in the window', () => {
  let t: RendererHost;
  /** What the stand-in picker was asked for, and what it answers next (undefined: the person cancelled). */
  const asked: FilePickPurpose[] = [];
  let answer: string | undefined;

  beforeAll(async () => {
    t = await openRendererHost({
      pickFile: (purpose) => {
        asked.push(purpose);
        return Promise.resolve(answer);
      },
    });
    await t.add('notes', [process.execPath, ECHO]);
  });
  afterAll(() => t?.close());

  it('a grant: a folder typed that does not exist is refused with what to do, and nothing is saved', async () => {
    const { page } = t;
    await t.open('#/servers/notes/permissions');
    const write = page.getByTestId('grants-write');
    const missing = join(t.root, 'no-such-folder');
    await write.getByLabel('Add a folder to change').fill(missing);
    await write.getByRole('button', { name: 'Add a folder to change' }).click();
    const error = await waitForText(page.getByTestId('detail-error'), 'does not exist');
    expect(error).toContain(`The write grant ${missing} does not exist. Create it first (mkdir -p '${missing}'), or leave the grant out. Nothing was changed.`);
    expect((await t.host.servers.detail('notes')).profile.filesystem.write).toEqual([]);
    expect(existsSync(missing)).toBe(false);
  });

  it('a grant: "Browse…" asks the system for a folder, and the one chosen is granted', async () => {
    const { page } = t;
    const folder = t.folder('chosen-notes');
    const write = page.getByTestId('grants-write');
    answer = folder;
    await write.getByRole('button', { name: 'Browse…' }).click();
    await expect.poll(async () => (await t.host.servers.detail('notes')).profile.filesystem.write).toEqual([folder]);
    await waitForText(write, folder);
    expect(asked.at(-1)).toBe('folder');
  });

  it('a grant: cancelling the picker changes nothing', async () => {
    const { page } = t;
    const read = page.getByTestId('grants-read');
    answer = undefined;
    const before = asked.length;
    await read.getByRole('button', { name: 'Browse…' }).click();
    await expect.poll(() => asked.length).toBe(before + 1);
    expect((await t.host.servers.detail('notes')).profile.filesystem.read).toEqual([]);
  });

  it('Settings: the program servers run with is chosen with the picker, checked, and saved', async () => {
    const { page } = t;
    await t.open('#/settings');
    const node = page.getByTestId('runtime-node');
    await node.getByRole('button', { name: 'Choose…' }).click();
    // Typed, a program that is not there is refused with the reason, and not saved.
    await node.getByLabel('Path to node').fill(join(t.root, 'no-node-here'));
    await node.getByRole('button', { name: 'Use this one' }).click();
    await waitForText(page.getByTestId('runtimes'), 'no-node-here');
    expect(t.host.store.read().settings.runtimes?.node).toBeUndefined();
    // Chosen with the picker: shown in the field, then saved once the person says so.
    answer = process.execPath;
    await node.getByRole('button', { name: 'Browse…' }).click();
    await expect.poll(() => node.getByLabel('Path to node').inputValue()).toBe(process.execPath);
    expect(asked.at(-1)).toBe('program');
    await node.getByRole('button', { name: 'Use this one' }).click();
    await expect.poll(() => t.host.store.read().settings.runtimes?.node).toBe(process.execPath);
    await waitForText(node, 'from your setting');
    expect(t.consoleErrors).toEqual([]);
  });
});
