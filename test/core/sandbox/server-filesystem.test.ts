import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type SandboxProfile } from '../../../shared/domain';
import { createSandboxLauncher, type AirlockSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { connect, makeWorld } from './sandbox-harness';

const FILESYSTEM_SERVER = resolve(__dirname, '../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

// The published server is told it may use two folders; the sandbox grants
// only one. Its own checks pass for both, so what stops the second write is
// the sandbox, and the error it gets is the kernel's.
describe('@modelcontextprotocol/server-filesystem in the sandbox', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;
  let server: Awaited<ReturnType<typeof connect>>;
  let granted: string;
  let notGranted: string;

  beforeAll(async () => {
    world = await makeWorld();
    granted = join(world.base, 'granted');
    notGranted = join(world.base, 'not-granted');
    await mkdir(granted);
    await mkdir(notGranted);
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir });
    const profile: SandboxProfile = { ...defaultSandboxProfile(), filesystem: { read: [], write: [granted], persistentData: false } };
    const plan = await launcher.plan({ command: 'node', args: [FILESYSTEM_SERVER, granted, notGranted], env: {} }, profile, world.context('filesystem'));
    server = await connect(plan);
  });

  afterAll(async () => {
    await server?.close();
    await launcher?.close();
    await rm(world.base, { recursive: true, force: true });
  });

  it('write_file works in the granted folder', async () => {
    const result = await server.client.callTool({ name: 'write_file', arguments: { path: join(granted, 'hello.txt'), content: 'hi' } });
    expect(result.isError).toBeFalsy();
    expect(await readFile(join(granted, 'hello.txt'), 'utf8')).toBe('hi');
  });

  it("write_file fails with the sandbox's EROFS in a folder the server allows but the sandbox does not", async () => {
    const result = await server.client.callTool({ name: 'write_file', arguments: { path: join(notGranted, 'hello.txt'), content: 'hi' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/EROFS|read-only file system/i);
    await expect(stat(join(notGranted, 'hello.txt'))).rejects.toThrow();
  });
});
