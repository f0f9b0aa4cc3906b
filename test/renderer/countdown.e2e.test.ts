/** UX 6: the confirmation's countdown pauses while the person engages, and a request nobody answers ends in deny. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent, FILESYSTEM_SERVER, nextConfirmation, openRendererHost, waitForText, type RendererHost } from './renderer-support';

describe('the confirmation countdown', () => {
  let t: RendererHost;
  let work: string;
  beforeAll(async () => {
    t = await openRendererHost({ confirmationTimeoutMs: 20_000 });
    work = t.folder('work');
    await t.add('files', [process.execPath, FILESYSTEM_SERVER, work], { profile: { filesystem: { read: [work], write: [work], persistentData: false } } });
  });
  afterAll(() => t?.close());

  it('moves the deadline forward when the person engages, and says so', async () => {
    const pending = t.host.calls.call({ server: 'files', tool: 'write_file', arguments: { path: join(work, 'a.txt'), content: 'x' }, caller: agent });
    const before = await nextConfirmation(t.host);
    const dialog = t.page.getByRole('dialog');
    await dialog.waitFor();
    await t.page.getByTestId('confirmation-headline').click();
    await waitForText(t.page.getByTestId('countdown'), /Paused while you read/);
    await expect.poll(() => t.host.approvals.pending()[0]?.deadline ?? 0).toBeGreaterThan(before.deadline);
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    expect((await pending).outcome).toBe('denied');
  });
});
