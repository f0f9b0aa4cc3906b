/**
 * `airlock show NAME --sandbox-plan [--platform linux|darwin|win32] [--json]`:
 * the exact plan of a real server's launch, for this platform or another,
 * computed here from its real record — nothing starts. The macOS plan's
 * profile is evaluated (sbpl-evaluator.ts, a model of Seatbelt's matching);
 * the secret's value never appears, on any platform.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SbplProfile } from '../core/sandbox/platform/sbpl-evaluator';
import { airlockCli, REPO } from '../support/cli';

const SERVER = join(REPO, 'test/fixtures/escape/escape-server.mjs');
const SECRET_VALUE = 'sk-plan-secret-must-not-print';

let notes: string;
let proj: string;

const cli = airlockCli('airlock-cli-plan-', { env: { NO_COLOR: '1' }, timeout: 90_000 });
const { dataDir, home, run: airlock } = cli;
function planOf(platform?: string) {
  const result = airlock(['show', 'planned', '--sandbox-plan', ...(platform ? ['--platform', platform] : []), '--json']);
  expect(result.code, result.err).toBe(0);
  expect(result.out).not.toContain(SECRET_VALUE);
  return JSON.parse(result.out);
}

beforeAll(() => {
  notes = join(home, 'notes');
  proj = join(home, 'proj');
  for (const dir of [notes, proj, join(home, '.ssh')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'FAKE KEY\n');
  const added = airlock(['add', 'planned', '--read', notes, '--write', proj, '--domain', 'api.github.com', '--yes', '--', process.execPath, SERVER]);
  expect(added.code, added.err).toBe(0);
  const secret = airlock(['grant', 'planned', '--secret', 'API_KEY', '--yes'], { API_KEY: SECRET_VALUE });
  expect(secret.code, secret.err).toBe(0);
});
afterAll(() => cli.remove());

describe('airlock show --sandbox-plan', () => {
  it("for this computer (Linux): bubblewrap, every guarantee, the server's rules", () => {
    const plan = planOf();
    expect(plan).toMatchObject({ server: 'planned', platform: 'linux', foreign: false, backend: expect.stringContaining('bubblewrap') });
    expect(plan.guarantees).toHaveLength(11);
    expect(plan.files.readDenied).toEqual(expect.arrayContaining([home, join(home, '.ssh'), dataDir]));
    expect(plan.files.readAllowed).toContain(notes);
    expect(plan.files.writeAllowed).toContain(proj);
    expect(plan.network).toMatchObject({ allowedHosts: ['api.github.com'], endpoint: expect.stringContaining('127.0.0.1:3128') });
    expect(plan.launch.env.API_KEY).toBe('«secret»');
    // bubblewrap's mounts are made at start: a placeholder that says so, and the words for it (no invented argv).
    expect(plan.launch.args).toContain("«bubblewrap's mounts, made at start»");
    expect(plan.atStart.join(' ')).toMatch(/bubblewrap's mount options: sandbox-runtime makes them at each start/);
  });

  it('for macOS: the whole Seatbelt profile, which — evaluated — hides home and credentials, and lets it write only its grant', () => {
    const plan = planOf('darwin');
    expect(plan).toMatchObject({ platform: 'darwin', foreign: true });
    expect(plan.launch.command).toBe('/usr/bin/sandbox-exec');
    expect(plan.launch.args[1]).toBe(plan.profileText);
    const profile = new SbplProfile(plan.profileText);
    expect(profile.mayRead(join(home, '.ssh', 'id_rsa'))).toBe(false);
    expect(profile.mayRead(join(home, 'other.txt'))).toBe(false);
    expect(profile.mayRead(join(dataDir, 'airlock.json'))).toBe(false);
    expect(profile.mayRead(join(notes, 'a.md'))).toBe(true);
    expect(profile.mayCreate(join(proj, 'out.txt'))).toBe(true);
    expect(profile.mayCreate(join(proj, '.envrc'))).toBe(false);
    expect(profile.mayCreate(join(notes, 'x'))).toBe(false);
    expect(profile.mayConnect('93.184.216.34', 443)).toBe(false);
    expect(plan.launch.env.HTTP_PROXY).toContain('«per-launch credential»');
    // Its proxy's port is chosen at each start: shown as such, never as a port 0 it would not use.
    expect(plan.network.endpoint).toMatch(/^127\.0\.0\.1:«port chosen at start» /);
    expect(plan.launch.env.HTTP_PROXY).toMatch(/@127\.0\.0\.1:«port chosen at start»$/);
    expect(plan.profileText).toContain('(remote ip "localhost:«port chosen at start»")');
    expect(plan.profileText).not.toMatch(/localhost:0\b/);
    expect(plan.atStart.join(' ')).toMatch(/a free one is chosen at each start/);
  });

  it('for Windows: the srt-win argv, with a deny for the credential paths', () => {
    const plan = planOf('win32');
    expect(plan.launch.command).toMatch(/srt-win\.exe$/);
    expect(plan.launch.args.slice(0, 3)).toEqual(['--srt-win', 'exec', '--quiet']);
    expect(plan.launch.args.filter((_: string, i: number, all: string[]) => all[i - 1] === '--deny-read').length).toBeGreaterThan(50);
    expect(plan.guarantees.find((row: { row: string }) => row.row === 'resource-limits')).toMatchObject({ state: 'not enforced' });
    expect(plan.network.endpoint).toMatch(/^127\.0\.0\.1:«port chosen at start» \(its own proxy, on a port in 60080–60089/);
    expect(JSON.stringify(plan.launch)).not.toMatch(/127\.0\.0\.1:(0|60080)\b/);
  });

  it('in words: the guarantees marked, the rules, the profile; macOS and Windows said to be not yet verified on a real machine', () => {
    const linux = airlock(['show', 'planned', '--sandbox-plan']);
    expect(linux.code, linux.err).toBe(0);
    expect(linux.out).toContain('Guarantees:');
    expect(linux.out).toMatch(/Home folder hidden\s+enforced/);
    const mac = airlock(['show', 'planned', '--sandbox-plan', '--platform', 'macos']);
    expect(mac.out).toContain('Seatbelt profile (passed with sandbox-exec -p):');
    expect(mac.out).toContain('(deny default');
    expect(mac.out).toContain('Not yet verified on a real macOS machine');
    expect(mac.out).toMatch(/Home folder hidden\s+weaker/);
    expect(mac.out).not.toContain(SECRET_VALUE);
    expect(mac.out).toContain('Made only when it starts (shown as «…» or XXXXXX below):');
    expect(mac.out).toContain('its traffic goes to 127.0.0.1:«port chosen at start»');
    expect(linux.out).toMatch(/Made only when it starts[^]*bubblewrap's mount options/);
  });

  it('refuses --platform without --sandbox-plan, and a platform it has no sandbox for (exit 2)', () => {
    expect(airlock(['show', 'planned', '--platform', 'darwin'])).toMatchObject({ code: 2, err: expect.stringContaining('--platform goes with --sandbox-plan') });
    expect(airlock(['show', 'planned', '--sandbox-plan', '--platform', 'constructor'])).toMatchObject({ code: 2, err: expect.stringContaining('linux, darwin or win32') });
  });
});
