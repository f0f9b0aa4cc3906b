/**
 * The system's file picker for the window's "Browse…" buttons (a grant's
 * folder, a bundle, a config to import, a program servers run with), through
 * the narrow part of Electron's `dialog` it needs, so a test can pass a
 * stand-in and see what is asked for each purpose.
 */
import type { BrowserWindow, Dialog, OpenDialogOptions } from 'electron';
import type { FilePickPurpose } from '../../shared/ipc';

/** What the picker needs of Electron's dialog module. */
export type OpenDialog = Pick<Dialog, 'showOpenDialog'>;

/** The picker's options for each purpose: a folder for a grant, a file of the right kind otherwise. */
export function pickerOptions(purpose: FilePickPurpose): OpenDialogOptions {
  switch (purpose) {
    case 'folder':
      return { title: 'Choose a folder', properties: ['openDirectory', 'createDirectory'] };
    case 'mcpb':
      return { title: 'Choose an MCP bundle', properties: ['openFile'], filters: [{ name: 'MCP bundle', extensions: ['mcpb', 'dxt'] }] };
    case 'config':
      return { title: 'Choose an app’s MCP config', properties: ['openFile', 'showHiddenFiles'], filters: [{ name: 'JSON', extensions: ['json', 'jsonc'] }] };
    case 'program':
      // node, python or uv: programs have no extension to filter by (on Windows, .exe).
      return { title: 'Choose the program', properties: ['openFile', 'showHiddenFiles'], ...(process.platform === 'win32' ? { filters: [{ name: 'Programs', extensions: ['exe', 'cmd', 'bat'] }] } : {}) };
  }
}

/** Shows the picker (over `window` when there is one); the chosen path, or undefined when the person cancelled. */
export async function pickPath(dialog: OpenDialog, window: BrowserWindow | undefined, purpose: FilePickPurpose): Promise<string | undefined> {
  const options = pickerOptions(purpose);
  const result = window ? await dialog.showOpenDialog(window, options) : await dialog.showOpenDialog(options);
  return result.canceled ? undefined : result.filePaths[0];
}
