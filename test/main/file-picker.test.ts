/**
 * The window's file picker through the narrow part of Electron's dialog it
 * uses, with a stand-in dialog: what it asks the system for each purpose, and
 * what a choice or a cancel returns.
 */
import type { BrowserWindow, OpenDialogOptions, OpenDialogReturnValue } from 'electron';
import { describe, expect, it } from 'vitest';
import { pickPath, pickerOptions, type OpenDialog } from '../../electron/main/file-picker';

/** A stand-in for Electron's dialog: records what it was asked, answers as told. */
function standIn(answer: OpenDialogReturnValue) {
  const asked: Array<{ window: boolean; options: OpenDialogOptions }> = [];
  const dialog = {
    showOpenDialog: (first: BrowserWindow | OpenDialogOptions, second?: OpenDialogOptions) => {
      asked.push(second ? { window: true, options: second } : { window: false, options: first as OpenDialogOptions });
      return Promise.resolve(answer);
    },
  } as unknown as OpenDialog;
  return { dialog, asked };
}

describe('the window’s file picker', () => {
  it.each([
    ['folder', ['openDirectory', 'createDirectory'], undefined],
    ['mcpb', ['openFile'], ['mcpb', 'dxt']],
    ['config', ['openFile', 'showHiddenFiles'], ['json', 'jsonc']],
  ] as const)('asks for a %s with the right properties', (purpose, properties, extensions) => {
    const options = pickerOptions(purpose);
    expect(options.properties).toEqual(properties);
    expect(options.filters?.[0]?.extensions).toEqual(extensions);
  });

  it('a program (node, python, uv): any file, hidden ones shown (they live in ~/.nvm, ~/.local)', () => {
    expect(pickerOptions('program').properties).toEqual(['openFile', 'showHiddenFiles']);
  });

  it('returns the chosen path, over the window when there is one', async () => {
    const { dialog, asked } = standIn({ canceled: false, filePaths: ['/home/me/notes'] });
    expect(await pickPath(dialog, {} as BrowserWindow, 'folder')).toBe('/home/me/notes');
    expect(asked).toEqual([{ window: true, options: pickerOptions('folder') }]);
  });

  it('returns nothing when the person cancelled', async () => {
    const { dialog, asked } = standIn({ canceled: true, filePaths: [] });
    expect(await pickPath(dialog, undefined, 'program')).toBeUndefined();
    expect(asked[0]!.window).toBe(false);
  });
});
