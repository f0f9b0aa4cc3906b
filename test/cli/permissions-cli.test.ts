/**
 * What a server may do, on the command line. `airlock show` names the
 * resource limits it runs under (and which does not hold here), `airlock
 * doctor` that the sandbox needs prlimit; `airlock grant NAME
 * --write-trusted PATH`: a person lets one server change
 * files other programs trust inside a folder it may write (a git server
 * that commits), warned and asked first. Checked from outside: a real
 * server in the real sandbox writes a repository's `.git/config` on disk
 * only where it was allowed — never in the repository beside it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airlockCli, REPO } from '../support/cli';

const PLANTER = join(REPO, 'test/fixtures/escape/git-planter.mjs');

let work: string;
let repoA: string;
let repoB: string;
let markers: string;

const cli = airlockCli('airlock-cli-trusted-', { env: { NO_COLOR: '1' }, timeout: 90_000 });
const { root, home, run: airlock, json } = cli;
/** The planter's report of each step it tried inside its sandbox. */
function plant(variant: string, where: string): Array<{ step: string; ok: boolean; code?: string }> {
  const result = json(['call', 'git-server', 'plant', '--args', JSON.stringify({ variant, root: where, marker: join(markers, variant) })]);
  expect(result.value.outcome, result.err).toBe('ok');
  return JSON.parse(result.value.content[0].text);
}
function git(cwd: string, ...args: string[]) {
  return spawnSync('git', ['-c', 'user.name=person', '-c', 'user.email=p@example.invalid', ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_CEILING_DIRECTORIES: root },
  });
}

beforeAll(() => {
  work = join(root, 'work');
  markers = join(root, 'markers');
  repoA = join(work, 'a');
  repoB = join(work, 'b');
  for (const dir of [home, markers, repoA, repoB]) mkdirSync(dir, { recursive: true });
  for (const repo of [repoA, repoB]) {
    git(repo, 'init', '-q');
    writeFileSync(join(repo, 'readme.md'), 'hi\n');
  }
  const added = airlock(['add', 'git-server', '--write', work, '--yes', '--', process.execPath, PLANTER]);
  expect(added.code, added.err).toBe(0);
  const rule = airlock(['rules', 'add', 'git-server', 'plant', 'allow', '--confirm-destructive', '--yes']);
  expect(rule.code, rule.err).toBe(0);
});
afterAll(() => cli.remove());

describe('airlock grant --write-trusted', () => {
  it('without it, a repository’s .git/config in a write grant stays read-only to the server', () => {
    const before = readFileSync(join(repoA, '.git', 'config'), 'utf8');
    expect(plant('repo-config', repoA).find((step) => step.step === 'config')).toMatchObject({ ok: false, code: expect.stringMatching(/EROFS|EACCES|EPERM|EBUSY/) });
    expect(readFileSync(join(repoA, '.git', 'config'), 'utf8')).toBe(before);
    expect(airlock(['show', 'git-server']).out).toContain('files other programs trust (.git, .envrc, .vscode …) stay protected');
  });

  it('asks first and says why it is dangerous: without a terminal or --yes, exit 4 and nothing changes', () => {
    const { code, err } = airlock(['grant', 'git-server', '--write-trusted', join(repoA, '.git')]);
    expect(code).toBe(4);
    expect(err).toContain(`changes to the trusted files at ${join(repoA, '.git')}`);
    expect(err).toContain('git, direnv or your editor may then run what it wrote, outside the sandbox');
    expect(json(['show', 'git-server']).value.profile.filesystem.writeTrusted).toBeUndefined();
  });

  it('refuses a path that is not inside a folder the server may write (exit 2)', () => {
    const { code, err } = airlock(['grant', 'git-server', '--write-trusted', join(root, 'elsewhere', '.git'), '--yes']);
    expect(code).toBe(2);
    expect(err).toContain('is not inside a folder this server may write');
    expect(json(['show', 'git-server']).value.profile.filesystem.writeTrusted).toBeUndefined();
  });

  it('with it, the server changes that repository’s .git/config on disk — and still not the repository beside it', () => {
    const granted = airlock(['grant', 'git-server', '--write-trusted', join(repoA, '.git'), '--yes']);
    expect(granted.code, granted.err).toBe(0);
    expect(granted.err).toContain('Warning:');
    const shown = airlock(['show', 'git-server']).out;
    expect(shown).toContain(`it may also change files other programs trust at: ${join(repoA, '.git')}`);
    expect(json(['show', 'git-server']).value.profile.filesystem.writeTrusted).toEqual([join(repoA, '.git')]);

    expect(plant('repo-config', repoA)).toEqual([
      { step: 'config', ok: true },
      { step: 'hook', ok: true },
    ]);
    expect(readFileSync(join(repoA, '.git', 'config'), 'utf8')).toContain('fsmonitor');

    const otherBefore = readFileSync(join(repoB, '.git', 'config'), 'utf8');
    expect(plant('repo-config', repoB).map((step) => step.ok)).toEqual([false, false]);
    expect(readFileSync(join(repoB, '.git', 'config'), 'utf8')).toBe(otherBefore);
    // …nor plant a repository of its own at the grant's root
    expect(plant('root-repo', work).find((step) => step.step === 'config')).toMatchObject({ ok: false });
  });

  it('revoke --write-trusted protects it again', () => {
    writeFileSync(join(repoA, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n');
    const revoked = airlock(['revoke', 'git-server', '--write-trusted', join(repoA, '.git')]);
    expect(revoked.code, revoked.err).toBe(0);
    expect(json(['show', 'git-server']).value.profile.filesystem.writeTrusted).toBeUndefined();
    expect(plant('repo-config', repoA).find((step) => step.step === 'config')).toMatchObject({ ok: false });
    expect(readFileSync(join(repoA, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
  });

  it('taking the write grant back takes the exception inside it with it', () => {
    expect(airlock(['grant', 'git-server', '--write-trusted', join(repoA, '.git'), '--yes']).code).toBe(0);
    expect(airlock(['revoke', 'git-server', '--write', work]).code).toBe(0);
    const filesystem = json(['show', 'git-server']).value.profile.filesystem;
    expect(filesystem.write).toEqual([]);
    expect(filesystem.writeTrusted).toBeUndefined();
    // granting the folder again does not bring the exception back
    expect(airlock(['grant', 'git-server', '--write', work, '--yes']).code).toBe(0);
    expect(json(['show', 'git-server']).value.profile.filesystem.writeTrusted).toBeUndefined();
  });
});

describe('airlock show: resource limits', () => {
  it('names each limit the server runs under, and says which does not hold here', () => {
    const text = airlock(['show', 'git-server']).out;
    expect(text).toContain('Resource limits (set inside its sandbox):');
    expect(text).toMatch(/Processes and threads: +1,024, counting everything it starts/);
    expect(text).toMatch(/Memory: +8 GB of writable memory per process \(more is refused\)/);
    expect(text).toMatch(/CPU time: +4 hours per process, then that process is stopped/);
    expect(text).toMatch(/Open files: +8,192 per process/);
    const processes = json(['show', 'git-server']).value.limits.find((limit: { kind: string }) => limit.kind === 'processes');
    if (process.geteuid?.() === 0) {
      expect(processes.holds).toBe(false);
      expect(text).toContain('Does not hold here: Airlock runs as root');
    } else {
      expect(processes.holds).toBe(true);
      expect(text).not.toContain('Does not hold here');
    }
  });

  it('airlock doctor names prlimit among what the sandbox needs', () => {
    const { code, out } = airlock(['doctor']);
    expect(code).toBe(0);
    expect(out).toContain('The sandbox is ready (bwrap, socat, rg, prlimit found).');
  });
});
