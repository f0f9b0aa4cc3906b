/**
 * The macOS plan, as data, on Linux: the Seatbelt profile the darwin
 * backend produces (sandbox-runtime's macOS utilities + Airlock's section)
 * is EVALUATED, not grepped — by sbpl-evaluator.ts, a model of Seatbelt's
 * matching (last match wins; an operation's own rules before its
 * wildcard's; subpath, literal, regex), which is not Seatbelt. The server:
 * a read grant, a write grant inside the home folder, a network allowlist,
 * a secret; installed in Airlock's data folder, run with an nvm node.
 */
import { describe, expect, it } from 'vitest';
import { SandboxProfileError } from '../../../../electron/core/sandbox/errors';
import { airlockSection, darwinBackend, darwinLimitsScript, darwinPlan, packageProfile, SANDBOX_EXEC } from '../../../../electron/core/sandbox/platform/darwin';
import { SECRET_HOME_PATHS } from '../../../../electron/core/sandbox/profiles';
import { macWorld, planInputFor, PROXY_PORT, SECRET } from './plan-inputs';
import { SbplProfile } from './sbpl-evaluator';
import { loadSandboxLibrary } from '../../../../electron/core/sandbox';

// sandbox-runtime's macOS module is loaded before a macOS plan is made (as a host does on macOS).
await loadSandboxLibrary('darwin');

const world = macWorld();
const input = planInputFor(darwinBackend, world);
const plan = darwinPlan(input);
const profile = new SbplProfile(plan.profileText!);

describe('the macOS plan: reads', () => {
  it.each(darwinBackend.secretPaths(world.home).map((path) => [path]))('denies reading the credential path %s (and what is in it)', (path) => {
    expect(profile.mayRead(path)).toBe(false);
    expect(profile.mayRead(`${path}/inside`)).toBe(false);
  });

  it('covers the whole common credential list under the Mac home folder', () => {
    for (const rel of SECRET_HOME_PATHS) expect(darwinBackend.secretPaths(world.home)).toContain(`${world.home}/${rel}`);
  });

  it("denies every Airlock data folder — its own (the store, another server's code) and another one elsewhere", () => {
    expect(profile.mayRead(`${world.dataDir}/store.json`)).toBe(false);
    expect(profile.mayRead(`${world.dataDir}/secrets.json`)).toBe(false);
    expect(profile.mayRead(`${world.dataDir}/servers/other/pkg/index.js`)).toBe(false);
    expect(profile.mayRead(`${world.serverDataDir}/memory.jsonl`)).toBe(false);
    expect(profile.mayRead(`${world.otherDataFolder}/store.json`)).toBe(false);
  });

  it("denies the rest of the home folder and the other servers' temporary folders", () => {
    expect(profile.mayRead(`${world.home}/notes.txt`)).toBe(false);
    expect(profile.mayRead(`${world.home}/Documents/taxes.pdf`)).toBe(false);
    expect(profile.mayList(world.home)).toBe(false);
    expect(profile.mayRead(`${world.runtimeParent}/run-a1b2c3/other-999999/w/home/.token`)).toBe(false);
    expect(profile.mayRead('/tmp/claude/shared.txt')).toBe(false);
    expect(profile.mayRead('/private/tmp/claude/shared.txt')).toBe(false);
  });

  it('but lets folder names under home be tested with stat — the weaker row says so', () => {
    expect(profile.mayStatFolder(`${world.home}/Documents`)).toBe(true);
    expect(plan.guarantees.find((row) => row.row === 'home-hidden')).toMatchObject({ state: 'weaker', how: expect.stringContaining('stat') });
  });

  it('lets it read its grants, its own code, its runtime, and its own writable folder', () => {
    expect(profile.mayRead(`${world.readGrant}/todo.md`)).toBe(true);
    expect(profile.mayRead(`${world.writeGrant}/src/main.ts`)).toBe(true);
    expect(profile.mayRead(world.script)).toBe(true);
    expect(profile.mayRead(`${world.runtimeDir}/lib/node_modules/npm/index.js`)).toBe(true);
    expect(profile.mayRead(`${world.writable}/home/.cache/x`)).toBe(true);
    expect(profile.mayRead('/usr/lib/libSystem.B.dylib')).toBe(true);
  });

  it('keeps a credential path denied beneath a grant that covers it', () => {
    const wide = new SbplProfile(darwinPlan({ ...input, files: { ...input.files, readAllowed: [...input.files.readAllowed, `${world.home}/.config`] } }).profileText!);
    expect(wide.mayRead(`${world.home}/.config/app/settings.json`)).toBe(true);
    expect(wide.mayRead(`${world.home}/.config/gh/hosts.yml`)).toBe(false);
    expect(wide.mayRead(`${world.home}/.config/gcloud/credentials.db`)).toBe(false);
  });
});

describe('the macOS plan: writes', () => {
  it('writes only where granted: its write grant, its temporary folder', () => {
    expect(profile.mayWrite(`${world.writeGrant}/src/main.ts`)).toBe(true);
    expect(profile.mayCreate(`${world.writeGrant}/src/new.ts`)).toBe(true);
    expect(profile.mayUnlink(`${world.writeGrant}/src/old.ts`)).toBe(true);
    expect(profile.mayCreate(`${world.writable}/tmp/scratch`)).toBe(true);
  });

  it.each([
    ['the read grant', `${macWorld().readGrant}/todo.md`],
    ['~/.bashrc', `${macWorld().home}/.bashrc`],
    ['~/Library/LaunchAgents', `${macWorld().home}/Library/LaunchAgents/evil.plist`],
    ["Airlock's store", `${macWorld().dataDir}/store.json`],
    ['its own installed code', macWorld().script],
    ['a system file', '/etc/hosts'],
    ['the shared scratch folder', '/private/tmp/claude/x'],
  ])('denies writing %s', (_label, path) => {
    expect(profile.mayWrite(path)).toBe(false);
    expect(profile.mayCreate(path)).toBe(false);
  });

  it('its persistent data folder is writable (and readable) only when granted', () => {
    expect(profile.mayCreate(`${world.serverDataDir}/memory.jsonl`)).toBe(false);
    const withData = new SbplProfile(darwinPlan(planInputFor(darwinBackend, world, { persistentData: true })).profileText!);
    expect(withData.mayCreate(`${world.serverDataDir}/memory.jsonl`)).toBe(true);
    expect(withData.mayRead(`${world.serverDataDir}/memory.jsonl`)).toBe(true);
    expect(withData.mayRead(`${world.dataDir}/store.json`)).toBe(false);
  });

  it.each([
    '.git/config',
    '.git/hooks/pre-commit',
    '.git/commondir',
    'sub/dir/.git/config',
    '.envrc',
    'deep/er/.envrc',
    '.vscode/tasks.json',
    'pkg/.npmrc',
    '.bashrc',
    '.mcp.json',
    'planted/HEAD',
  ])('denies creating or changing the protected name %s inside the write grant', (rel) => {
    const path = `${world.writeGrant}/${rel}`;
    expect(profile.mayCreate(path)).toBe(false);
    expect(profile.mayWrite(path)).toBe(false);
  });

  it('denies renaming or removing a protected folder (it cannot be swapped)', () => {
    expect(profile.mayUnlink(`${world.writeGrant}/.git`)).toBe(false);
    expect(profile.mayUnlink(`${world.writeGrant}/.git/config`)).toBe(false);
  });

  it("the package alone would not protect them: its own list is anchored at Airlock's working folder, not the grant", () => {
    const packageOnly = new SbplProfile(packageProfile(input, input.files.readAllowed).profile);
    expect(packageOnly.mayCreate(`${world.writeGrant}/.git/config`)).toBe(true);
    expect(packageOnly.mayCreate(`${world.writeGrant}/.envrc`)).toBe(true);
  });

  it('lets the person exempt one repository: it may commit there, nowhere else', () => {
    const repo = `${world.writeGrant}/repo/.git`;
    const exempted = new SbplProfile(darwinPlan(planInputFor(darwinBackend, world, { exempt: [repo] })).profileText!);
    expect(exempted.mayCreate(`${repo}/objects/ab/cdef`)).toBe(true);
    expect(exempted.mayWrite(`${repo}/config`)).toBe(true);
    expect(exempted.mayWrite(`${world.writeGrant}/other/.git/config`)).toBe(false);
    expect(exempted.mayCreate(`${world.writeGrant}/.envrc`)).toBe(false);
  });

  it('denies setting setuid or setgid bits, even inside the write grant', () => {
    expect(profile.maySetSetuid(`${world.writeGrant}/tool`)).toBe(false);
  });

  it('refuses a write grant whose path is too long for a profile string, plainly', () => {
    const long = `/Users/ann/${'x'.repeat(900)}`;
    expect(() => airlockSection({ protectedRoots: [long], protectedExempt: [] }, 'tag')).toThrow(SandboxProfileError);
  });
});

describe('the macOS plan: network', () => {
  it("connects only to this server's own proxy port", () => {
    expect(profile.mayConnect('127.0.0.1', PROXY_PORT)).toBe(true);
    expect(profile.mayConnect('::1', PROXY_PORT)).toBe(true);
    expect(profile.mayConnect('127.0.0.1', PROXY_PORT + 1)).toBe(false);
    expect(profile.mayConnect('127.0.0.1', 22)).toBe(false);
    expect(profile.mayConnect('93.184.216.34', 443)).toBe(false);
    expect(profile.mayConnect('140.82.112.5', 443)).toBe(false);
  });

  it('without a proxy, connects nowhere', () => {
    const offline = new SbplProfile(darwinPlan(planInputFor(darwinBackend, world, { proxy: false })).profileText!);
    expect(offline.mayConnect('127.0.0.1', PROXY_PORT)).toBe(false);
    expect(offline.mayConnect('93.184.216.34', 443)).toBe(false);
  });

  it('says where its traffic goes and which hosts it may reach', () => {
    expect(plan.network).toMatchObject({ endpoint: expect.stringContaining(`127.0.0.1:${PROXY_PORT}`), allowedHosts: ['api.github.com'], questions: true });
  });
});

describe('the macOS launch', () => {
  it("is the package's `sandbox-exec -p <profile>` form, then the limits, then the server — no env prefix, no shell left", () => {
    expect(plan.launch.command).toBe(SANDBOX_EXEC);
    expect(plan.launch.args.slice(0, 2)).toEqual(['-p', plan.profileText]);
    expect(plan.launch.args.slice(2, 6)).toEqual(['/bin/sh', '-c', darwinLimitsScript(input.limits), 'airlock-limits']);
    expect(plan.launch.args.slice(6)).toEqual([world.command, world.script, world.writeGrant]);
    expect(darwinLimitsScript(input.limits)).toMatch(/^ulimit -n 8192 && ulimit -d \d+ && ulimit -H -t \d+ && ulimit -S -t 14400 && exec "\$@"$/);
  });

  it("carries this server's proxy port in the profile, and its own temp folder and credential in its environment", () => {
    expect(plan.profileText).toContain(`(allow network-outbound (remote ip "localhost:${PROXY_PORT}"))`);
    expect(plan.launch.env.TMPDIR).toBe(`${world.writable}/tmp`);
    expect(plan.launch.env.TMPDIR).not.toBe('/tmp/claude');
    expect(plan.launch.env.HTTPS_PROXY).toContain(`@127.0.0.1:${PROXY_PORT}`);
    expect(plan.launch.env[SECRET.name]).toBe(SECRET.value);
    expect(plan.profileText).not.toContain(SECRET.value);
  });

  it('states its guarantees row by row, weaker where Seatbelt is', () => {
    expect(plan.guarantees.map((row) => [row.row, row.state])).toEqual([
      ['home-hidden', 'weaker'],
      ['credentials-denied', 'enforced'],
      ['data-folders-hidden', 'enforced'],
      ['writes-only-grants', 'enforced'],
      ['protected-files', 'enforced'],
      ['network-allowlist', 'enforced'],
      ['network-questions', 'enforced'],
      ['ipc-isolation', 'weaker'],
      ['privilege', 'weaker'],
      ['resource-limits', 'weaker'],
      ['violation-reporting', 'weaker'],
    ]);
    // The refusals come from `log stream`, which may not start (the session then only notes it): said, not claimed.
    expect(plan.guarantees.find((row) => row.row === 'violation-reporting')?.how).toMatch(/only while `log stream` runs.*cannot start/);
    expect(plan.limits.find((limit) => limit.kind === 'processes')).toMatchObject({ applied: false });
  });
});
