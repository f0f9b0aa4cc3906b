import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type SandboxProfile } from '../../../shared/domain';
import { createSandboxLauncher, type AirlockSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { call, connect, makeWorld } from './sandbox-harness';

const PLANTER = resolve(__dirname, '../../fixtures/escape/git-planter.mjs');
const spec = { command: process.execPath, args: [PLANTER], env: {} };
const writeGrant = (write: string[], writeTrusted?: string[]): SandboxProfile => ({
  ...defaultSandboxProfile(),
  filesystem: { read: [], write, persistentData: false, ...(writeTrusted ? { writeTrusted } : {}) },
});

/** Real git on the host, as the person (or their shell prompt) would run it, with no config of their own. */
function git(world: { base: string; home: string }, cwd: string, ...args: string[]) {
  return spawnSync('git', ['-c', 'user.name=person', '-c', 'user.email=p@example.invalid', ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: world.home, GIT_CONFIG_NOSYSTEM: '1', GIT_CEILING_DIRECTORIES: world.base, GIT_TERMINAL_PROMPT: '0' },
    timeout: 20_000,
  });
}

/** Waits (bounded) until `check` holds: the watcher acts on an event, not on a clock. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i += 1) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never happened: ${what}`);
}

const heldCopies = (dir: string, name: string) => readdirSync(dir).filter((entry) => entry.startsWith(`${name}.airlock-held-`));

// Red-team finding 2 (issue 9): in a write-granted folder a server planted
// .git (with core.fsmonitor), or .git/commondir in an existing repository,
// and the person's next plain `git status` ran its command unconfined. Each
// variant below is planted by a real server in the real sandbox; real git
// then runs outside it, and the marker the planted command would create must
// not exist.
describe('files that host tools run or trust, in a folder that is not a repository', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;
  let server: Awaited<ReturnType<typeof connect>> | undefined;
  let folder: string;
  let markers: string;
  const notes: string[] = [];
  const marker = (name: string) => join(markers, name);

  beforeAll(async () => {
    world = await makeWorld();
    folder = join(world.base, 'granted');
    markers = join(world.base, 'markers');
    mkdirSync(folder);
    mkdirSync(markers);
    // a repository that was already there, a few folders down
    mkdirSync(join(folder, 'projects', 'old'), { recursive: true });
    git(world, join(folder, 'projects', 'old'), 'init', '-q');
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir });
    const plan = await launcher.plan(spec, writeGrant([folder]), world.context('planter'));
    plan.onNote?.((text) => notes.push(text));
    server = await connect(plan);
  });

  afterAll(async () => {
    await server?.close();
    await launcher?.close();
    await rm(world.base, { recursive: true, force: true });
  });

  it('control: the same .git planted by hand (no sandbox) does run its command on `git status`', () => {
    const control = join(world.base, 'control');
    mkdirSync(join(control, '.git', 'objects'), { recursive: true });
    mkdirSync(join(control, '.git', 'refs', 'heads'), { recursive: true });
    writeFileSync(join(control, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(control, '.git', 'config'), `[core]\n\tfsmonitor = "touch ${marker('control')}; false"\n`);
    git(world, control, 'status');
    expect(existsSync(marker('control'))).toBe(true);
  });

  it('the root .git (core.fsmonitor) cannot be planted; `git status` runs nothing', async () => {
    const result = await call(server!.client, 'plant', { variant: 'root-repo', root: folder, marker: marker('root-repo') });
    expect(result.find((step: { step: string }) => step.step === 'HEAD')).toMatchObject({ ok: false });
    expect(result.find((step: { step: string }) => step.step === 'config')).toMatchObject({ ok: false });
    git(world, folder, 'status');
    expect(existsSync(marker('root-repo'))).toBe(false);
  });

  it('nor with core.hooksPath; `git init && git commit` there runs no planted hook', async () => {
    const result = await call(server!.client, 'plant', { variant: 'hooks-path', root: folder, marker: marker('hooks-path') });
    expect(result.find((step: { step: string }) => step.step === 'config')).toMatchObject({ ok: false });
    git(world, folder, 'status');
    expect(existsSync(marker('hooks-path'))).toBe(false);
  });

  it('a repository planted in a folder made at run time is held aside as soon as it appears', async () => {
    const result = await call(server!.client, 'plant', { variant: 'nested', root: folder, marker: marker('nested') });
    // Nothing could be prepared in a folder made now: the server makes it and starts planting
    // (the watcher may already be moving its .git away between its steps).
    expect(result[0]).toEqual({ step: 'folder', ok: true });
    const proj = join(folder, 'sub', 'proj');
    await eventually(() => !existsSync(join(proj, '.git')) && heldCopies(proj, '.git').length > 0, 'the planted .git held aside');
    git(world, proj, 'status');
    expect(existsSync(marker('nested'))).toBe(false);
  });

  it('a bare repository with core.sshCommand, planted in a new folder, is disarmed (its HEAD held aside); `git fetch` runs nothing', async () => {
    await call(server!.client, 'plant', { variant: 'ssh-command', root: folder, marker: marker('ssh') });
    const bare = join(folder, 'sub', 'bare');
    await eventually(() => heldCopies(bare, 'HEAD').length > 0, 'the bare repository disarmed');
    git(world, bare, 'fetch', 'origin');
    expect(existsSync(marker('ssh'))).toBe(false);
  });

  it('a repository that was already there, deeper down, keeps its config and hooks', async () => {
    const result = await call(server!.client, 'plant', { variant: 'repo-config', root: join(folder, 'projects', 'old'), marker: marker('old') });
    expect(result.map((step: { ok: boolean }) => step.ok)).toEqual([false, false]);
    git(world, join(folder, 'projects', 'old'), 'status');
    expect(existsSync(marker('old'))).toBe(false);
  });

  it('.envrc at the root is held aside as soon as it appears', async () => {
    await call(server!.client, 'plant', { variant: 'envrc', root: folder, marker: marker('envrc') });
    await eventually(() => !existsSync(join(folder, '.envrc')) && heldCopies(folder, '.envrc').length > 0, '.envrc held aside');
  });

  it('.vscode cannot be created at the root', async () => {
    const result = await call(server!.client, 'plant', { variant: 'vscode', root: folder, marker: marker('vscode') });
    expect(result.find((step: { step: string }) => step.step === 'tasks.json')).toMatchObject({ ok: false });
  });

  it('ordinary files are written as granted', async () => {
    expect(await call(server!.client, 'plant', { variant: 'ordinary', root: folder, marker: marker('none') })).toEqual([{ step: 'notes.md', ok: true }]);
    expect(readFileSync(join(folder, 'notes.md'), 'utf8')).toBe('hello\n');
  });

  it('the person is told what was held aside and where', () => {
    expect(notes.some((text) => text.includes(join(folder, 'sub', 'proj', '.git')) && text.includes('.airlock-held-'))).toBe(true);
    expect(notes.some((text) => text.includes(join(folder, '.envrc')))).toBe(true);
  });

  it('when the server stops, Airlock’s placeholders go and nothing planted is left armed', async () => {
    await server!.close();
    server = undefined;
    for (const name of ['.git', '.vscode', '.idea']) expect(existsSync(join(folder, name))).toBe(false);
    for (const name of Object.keys({ 'root-repo': 1, 'hooks-path': 1, nested: 1, ssh: 1 })) expect(existsSync(marker(name))).toBe(false);
    git(world, join(folder, 'sub', 'proj'), 'status');
    git(world, folder, 'status');
    expect(existsSync(marker('nested'))).toBe(false);
    expect(existsSync(marker('root-repo'))).toBe(false);
  });
});

describe('files that host tools run or trust, in an existing repository', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;
  let repo: string;
  let markers: string;
  const marker = (name: string) => join(markers, name);

  beforeAll(async () => {
    world = await makeWorld();
    repo = join(world.base, 'repo');
    markers = join(world.base, 'markers');
    mkdirSync(repo);
    mkdirSync(markers);
    git(world, repo, 'init', '-q');
    writeFileSync(join(repo, 'readme.md'), 'hi\n');
    git(world, repo, 'add', '.');
    git(world, repo, 'commit', '-q', '-m', 'first');
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir });
  });

  afterAll(async () => {
    await launcher?.close();
    await rm(world.base, { recursive: true, force: true });
  });

  it('.git/commondir, .git/config and hooks cannot be changed; git keeps working for the person meanwhile and runs nothing planted', async () => {
    const configBefore = readFileSync(join(repo, '.git', 'config'), 'utf8');
    const server = await connect(await launcher.plan(spec, writeGrant([repo]), world.context('in-repo')));
    try {
      const commondir = await call(server.client, 'plant', { variant: 'commondir', root: repo, marker: marker('commondir') });
      expect(commondir.find((step: { step: string }) => step.step === 'commondir')).toMatchObject({ ok: false });
      const config = await call(server.client, 'plant', { variant: 'repo-config', root: repo, marker: marker('config') });
      expect(config).toEqual([
        { step: 'config', ok: false, code: expect.stringMatching(/EROFS|EACCES|EPERM|EBUSY/) },
        { step: 'hook', ok: false, code: expect.stringMatching(/EROFS|EACCES|EPERM|EBUSY/) },
      ]);
      // the person's git, while the server runs
      expect(git(world, repo, 'status', '--short').status).toBe(0);
      expect(git(world, repo, 'commit', '-q', '--allow-empty', '-m', 'during').status).toBe(0);
      expect(existsSync(marker('commondir'))).toBe(false);
      expect(existsSync(marker('config'))).toBe(false);
    } finally {
      await server.close();
    }
    expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(existsSync(join(repo, '.git', 'commondir'))).toBe(false); // the placeholder went with the server
    expect(existsSync(join(repo, '.git', 'hooks', 'pre-commit'))).toBe(false);
    git(world, repo, 'status');
    expect(existsSync(marker('commondir'))).toBe(false);
  });

  it('a write grant of a single file starts (nothing to protect inside it)', async () => {
    const file = join(world.base, 'single.txt');
    writeFileSync(file, 'x');
    const plan = await launcher.plan(spec, writeGrant([file]), world.context('one-file'));
    await plan.dispose();
  });

  it('a person can let a server change .git anyway (writeTrusted), e.g. a git server that commits', async () => {
    const server = await connect(await launcher.plan(spec, writeGrant([repo], [join(repo, '.git')]), world.context('git-server')));
    try {
      const config = await call(server.client, 'plant', { variant: 'repo-config', root: repo, marker: marker('allowed') });
      expect(config[0]).toEqual({ step: 'config', ok: true });
    } finally {
      await server.close();
    }
    expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).toContain('fsmonitor');
    expect(lstatSync(join(repo, '.git')).isDirectory()).toBe(true);
  });
});

// Found by the choke-point tests (issue 10): two servers sharing a write
// grant. While one runs, the other restarts and Airlock makes its
// placeholders again; the running one's watcher took them for something a
// server planted and held them aside, so the restart failed (bwrap: "Can't
// find source path …/.git") and the person was told of a repository that
// nobody planted. Placeholders any live launch made are Airlock's own.
describe('two servers sharing a write grant', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;
  let folder: string;
  const notes: string[] = [];
  const held = () => readdirSync(folder).filter((entry) => entry.includes('.airlock-held-'));

  beforeAll(async () => {
    world = await makeWorld();
    folder = join(world.base, 'shared');
    mkdirSync(folder);
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir });
  });

  afterAll(async () => {
    await launcher?.close();
    await rm(world.base, { recursive: true, force: true });
  });

  const start = async (name: string) => {
    const plan = await launcher.plan(spec, writeGrant([folder]), world.context(name));
    plan.onNote?.((text) => notes.push(`${name}: ${text}`));
    return connect(plan);
  };
  /** Plants `.envrc` by hand and waits until a watcher held it aside: every event before it has been handled too. */
  const settleWatchers = async () => {
    writeFileSync(join(folder, '.envrc'), 'echo planted\n');
    await eventually(() => !existsSync(join(folder, '.envrc')), '.envrc held aside');
  };

  it('one restarts while the other runs: it starts, and none of Airlock’s own placeholders is held aside', async () => {
    const first = await start('first');
    const second = await start('second');
    await first.close();
    // The first server starts again while the second runs (a restart after a crash).
    const again = await start('first-again');
    try {
      // It runs, and its own placeholder still protects: .git cannot be filled.
      const planted = await call(again.client, 'plant', { variant: 'root-repo', root: folder, marker: join(world.base, 'never') });
      for (const step of ['HEAD', 'config']) expect(planted.find((s: { step: string }) => s.step === step)).toMatchObject({ ok: false });
      await settleWatchers();
      expect(held().filter((entry) => !entry.startsWith('.envrc'))).toEqual([]);
      expect(notes.filter((text) => !text.includes('.envrc'))).toEqual([]);
      for (const name of ['.git', '.vscode', '.idea']) expect(lstatSync(join(folder, name)).isDirectory()).toBe(true);
      // The second stops while the restarted one runs: its sweep holds nothing of Airlock's aside either.
      await second.close();
      expect(held().filter((entry) => !entry.startsWith('.envrc'))).toEqual([]);
      expect(readdirSync(join(folder, '.git'))).toEqual([]);
    } finally {
      await again.close();
      await second.close();
    }
    // The last one gone: no placeholder is left in the person's folder.
    for (const name of ['.git', '.vscode', '.idea']) expect(existsSync(join(folder, name))).toBe(false);
  });

  // The mutation exercise (issue 10): a running server's watcher given only
  // its own launch's placeholders survived the test above (there, the
  // restart finds the placeholders still there and makes none). It matters
  // when a launch makes new ones under a running server's grant: a grant
  // inside another's.
  it('a server granted a folder inside the running one’s grant starts, and the running one’s watcher holds none of its placeholders aside', async () => {
    const outer = await start('outer');
    const sub = join(folder, 'sub');
    mkdirSync(sub);
    let inner: Awaited<ReturnType<typeof connect>> | undefined;
    try {
      // The inner launch makes sub/.git, sub/.vscode and sub/.idea while the outer server's watcher runs.
      const plan = await launcher.plan(spec, writeGrant([sub]), world.context('inner'));
      plan.onNote?.((text) => notes.push(`inner: ${text}`));
      inner = await connect(plan);
      // Every event before it handled: plant .envrc by hand in the same folder and wait until it is held aside.
      writeFileSync(join(sub, '.envrc'), 'echo planted\n');
      await eventually(() => !existsSync(join(sub, '.envrc')), 'sub/.envrc held aside');
      expect(readdirSync(sub).filter((entry) => entry.includes('.airlock-held-') && !entry.startsWith('.envrc'))).toEqual([]);
      expect(notes.filter((text) => !text.includes('.envrc'))).toEqual([]);
      for (const name of ['.git', '.vscode', '.idea']) expect(lstatSync(join(sub, name)).isDirectory()).toBe(true);
      // And the inner server's placeholder protects: sub/.git cannot be filled.
      const planted = await call(inner.client, 'plant', { variant: 'root-repo', root: sub, marker: join(world.base, 'never') });
      for (const step of ['HEAD', 'config']) expect(planted.find((s: { step: string }) => s.step === step)).toMatchObject({ ok: false });
    } finally {
      await inner?.close();
      await outer.close();
    }
    for (const name of ['.git', '.vscode', '.idea']) expect(existsSync(join(sub, name))).toBe(false);
  });
});

// The exception is for the path the person allowed, resolved through its
// grant as pinned: a folder on the way swapped for a symbolic link (to
// another repository in the same grant) does not carry it there.
describe('a trusted-files exception (writeTrusted) that now leads elsewhere', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;
  let parent: string;
  let markers: string;

  beforeAll(async () => {
    world = await makeWorld();
    parent = join(world.base, 'projects');
    markers = join(world.base, 'markers');
    mkdirSync(markers);
    for (const name of ['a', 'b']) {
      mkdirSync(join(parent, name), { recursive: true });
      git(world, join(parent, name), 'init', '-q');
    }
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir });
  });

  afterAll(async () => {
    await launcher?.close();
    await rm(world.base, { recursive: true, force: true });
  });

  it('is not applied: the repository it leads to now stays protected, and the person is told', async () => {
    const allowed = join(parent, 'a', '.git');
    // a/ is replaced by a link to b/ (by anything that can write the grant, e.g. the server itself)
    renameSync(join(parent, 'a'), join(parent, 'a-old'));
    symlinkSync(join(parent, 'b'), join(parent, 'a'));
    const configBefore = readFileSync(join(parent, 'b', '.git', 'config'), 'utf8');
    const plan = await launcher.plan(spec, writeGrant([parent], [allowed]), world.context('moved'));
    const notes: string[] = [];
    plan.onNote?.((text) => notes.push(text));
    const server = await connect(plan);
    try {
      for (const root of [join(parent, 'a'), join(parent, 'b')]) {
        const result = await call(server.client, 'plant', { variant: 'repo-config', root, marker: join(markers, 'moved') });
        expect(result.find((step: { step: string }) => step.step === 'config')).toMatchObject({ ok: false });
      }
    } finally {
      await server.close();
    }
    expect(readFileSync(join(parent, 'b', '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(notes.some((text) => text.includes(allowed) && text.includes(`now leads to ${join(realpathSync(parent), 'b', '.git')}`))).toBe(true);
  });
});
