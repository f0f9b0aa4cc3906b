/**
 * The window says, at every start until the person acts, that the settings
 * file could not be read: why, where it was kept, and how to get it back —
 * the same notice every command prints. Chromium over the real core.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRendererHost, waitForText, type RendererHost } from './renderer-support';

describe('an unreadable settings file, in the window', () => {
  let dataDir: string;
  let t: RendererHost | undefined;

  beforeAll(() => {
    dataDir = join(mkdtempSync(join(tmpdir(), 'airlock-ui-unreadable-')), 'data');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'airlock.json'), '{"servers": {"files": ');
  });
  afterAll(async () => {
    await t?.close();
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('is said on every start, until the kept copy is restored or deleted', async () => {
    for (let start = 0; start < 2; start += 1) {
      t = await openRendererHost({ host: { dataDir } });
      const kept = readdirSync(dataDir).filter((name) => name.startsWith('airlock.corrupt-'));
      expect(kept).toHaveLength(1);
      const notice = await waitForText(t.page.getByRole('alert').filter({ hasText: 'settings file could not be read' }), 'could not be read');
      expect(notice).toContain('it is not valid JSON');
      expect(notice).toContain(`The unreadable file is kept as ${join(dataDir, kept[0]!)}`);
      expect(notice).toContain(`airlock settings restore ${join(dataDir, kept[0]!)}`);
      await t.close();
      t = undefined;
    }
  }, 120_000);
});
