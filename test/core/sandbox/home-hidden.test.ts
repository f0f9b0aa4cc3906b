import { cp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type SandboxProfile } from '../../../shared/domain';
import { dataFolderRegistryPath } from '../../../electron/core/sandbox/data-folders';
import { createSandboxLauncher, type AirlockSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { SecretStore } from '../../../electron/core/secrets/secret-store';
import { call, connect, ESCAPE_SERVER, makeWorld } from './sandbox-harness';

/** The red team's list (issue 9, finding 3b) and the well-known credential files beside it, relative to home. */
const CREDENTIALS: Record<string, string> = {
  '.config/git/credentials': 'https://user:ghp_token@github.com\n',
  '.pgpass': 'db:5432:*:user:pg-secret\n',
  '.cargo/credentials.toml': '[registry]\ntoken = "cargo-secret"\n',
  '.m2/settings.xml': '<settings><servers><server><password>maven-secret</password></server></servers></settings>\n',
  '.config/rclone/rclone.conf': '[drive]\ntoken = rclone-secret\n',
  '.terraform.d/credentials.tfrc.json': '{"credentials":{"app.terraform.io":{"token":"tf-secret"}}}\n',
  '.vault-token': 'hvs.vault-secret\n',
  '.bash_history': 'export OPENAI_API_KEY=sk-history-secret\n',
  'projects/app/.env': 'DATABASE_URL=postgres://user:env-secret@db/app\n',
  '.docker/config.json': '{"auths":{"ghcr.io":{"auth":"docker-secret"}}}\n',
  '.kube/config': 'users:\n- user:\n    token: kube-secret\n',
  '.npmrc': '//registry.npmjs.org/:_authToken=npm-secret\n',
  '.git-credentials': 'https://user:git-secret@github.com\n',
};

const withRead = (...read: string[]): SandboxProfile => ({ ...defaultSandboxProfile(), filesystem: { read, write: [], persistentData: false } });

// Red-team finding 3b (issue 9): the secrets list was a short denylist, and a
// contained server read credential files all over home and another Airlock
// data folder's plain-text secrets.json through a call nobody was asked about.
// Home is now hidden as a whole (an allowlist); checked from inside a real
// sandbox, file by file.
describe('the home folder is hidden by default', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;
  let cliDataDir: string;

  beforeAll(async () => {
    world = await makeWorld();
    for (const [path, text] of Object.entries(CREDENTIALS)) {
      await mkdir(dirname(join(world.home, path)), { recursive: true });
      await writeFile(join(world.home, path), text);
    }
    // Another Airlock data folder, outside home: a CLI's, with a plain-text secret.
    cliDataDir = join(world.base, 'cli-data');
    new SecretStore(cliDataDir, undefined, dataFolderRegistryPath({}, world.home)).set('github', 'GITHUB_TOKEN', 'cli-plain-secret');
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir });
  });

  afterAll(async () => {
    await launcher?.close();
    await rm(world.base, { recursive: true, force: true });
  });

  const run = async <T>(profile: SandboxProfile, name: string, body: (server: Awaited<ReturnType<typeof connect>>) => Promise<T>, spec = { command: process.execPath, args: [ESCAPE_SERVER], env: {} }) => {
    const server = await connect(await launcher.plan(spec, profile, world.context(name)));
    try {
      return await body(server);
    } finally {
      await server.close();
    }
  };

  it('a contained server reads none of the credential files, nor another data folder’s secrets.json', async () => {
    await run(defaultSandboxProfile(), 'contained', async (server) => {
      for (const path of Object.keys(CREDENTIALS)) {
        const result = await call(server.client, 'read_file', { path: join(world.home, path) });
        expect({ path, ok: result.ok }).toEqual({ path, ok: false });
      }
      expect(await call(server.client, 'read_file', { path: join(cliDataDir, 'secrets.json') })).toMatchObject({ ok: false });
    });
  });

  it('the secrets file is really there in plain text (so the test above proves the sandbox, not a missing file)', async () => {
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(join(cliDataDir, 'secrets.json'), 'utf8')).toContain('cli-plain-secret');
  });

  it('a read grant of home (or of ~/.config) still leaves the credential files hidden', async () => {
    await run(withRead(world.home, join(world.home, '.config')), 'reads-home', async (server) => {
      for (const path of Object.keys(CREDENTIALS).filter((p) => !p.endsWith('.env'))) {
        const result = await call(server.client, 'read_file', { path: join(world.home, path) });
        expect({ path, ok: result.ok }).toEqual({ path, ok: false });
      }
      // what the grant is for stays readable
      expect(await call(server.client, 'read_file', { path: join(world.home, 'notes.txt') })).toMatchObject({ ok: true });
      // a .env inside a granted folder is the grant's business
      expect(await call(server.client, 'read_file', { path: join(world.home, 'projects/app/.env') })).toMatchObject({ ok: true });
    });
  });

  it('a grant of one folder opens that folder only', async () => {
    await run(withRead(join(world.home, 'projects', 'app')), 'reads-app', async (server) => {
      expect(await call(server.client, 'read_file', { path: join(world.home, 'projects/app/.env') })).toMatchObject({ ok: true });
      expect(await call(server.client, 'read_file', { path: join(world.home, 'notes.txt') })).toMatchObject({ ok: false });
    });
  });

  it('a server run from its project under home, by a node kept under home (nvm), starts and reads its own files, not its neighbours’', async () => {
    // node in ~/.nvm/versions/node/v20/bin (a link to this node), a marker in its lib folder
    const prefix = join(world.home, '.nvm', 'versions', 'node', 'v20');
    await mkdir(join(prefix, 'bin'), { recursive: true });
    await mkdir(join(prefix, 'lib'), { recursive: true });
    await symlink(process.execPath, join(prefix, 'bin', 'node'));
    await writeFile(join(prefix, 'lib', 'marker.txt'), 'runtime file\n');
    // the server's project: package.json at its root, the script in src/
    const project = join(world.home, 'projects', 'my-server');
    await mkdir(join(project, 'src'), { recursive: true });
    await writeFile(join(project, 'package.json'), '{"type":"module"}\n');
    await cp(ESCAPE_SERVER, join(project, 'src', 'server.mjs'));
    await symlink(resolve(dirname(ESCAPE_SERVER), '../../../node_modules'), join(project, 'node_modules'));
    const spec = { command: join(prefix, 'bin', 'node'), args: [join(project, 'src', 'server.mjs')], env: {} };
    await run(
      defaultSandboxProfile(),
      'nvm',
      async (server) => {
        expect(await call(server.client, 'read_file', { path: join(prefix, 'lib', 'marker.txt') })).toMatchObject({ ok: true });
        expect(await call(server.client, 'read_file', { path: join(project, 'package.json') })).toMatchObject({ ok: true });
        expect(await call(server.client, 'read_file', { path: join(world.home, 'projects/app/.env') })).toMatchObject({ ok: false });
        expect(await call(server.client, 'read_file', { path: join(world.home, '.nvm', 'nvm.sh') })).toMatchObject({ ok: false });
      },
      spec,
    );
  });
});
