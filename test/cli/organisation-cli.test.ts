/**
 * The built `airlock` command under an organisation's policy at its real
 * path, /etc/airlock/managed-policy.json — written inside a private mount
 * namespace (test/support/policy-namespace.ts), so nothing else on the
 * machine sees it: what `settings`, `doctor` and `--json` show, each key's
 * refusal (exit 7, the key named, nothing changed), a server the policy
 * denies, and an unreadable policy failing closed with its file and line.
 */
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OtlpReceiver } from '../support/otlp-receiver';
import { canUseRealPolicyPaths, inPolicyNamespace, sh, startInPolicyNamespace } from '../support/policy-namespace';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/airlock.js');
const ECHO = join(ROOT, 'test/fixtures/servers/echo.mjs');
const POLICY = '/etc/airlock/managed-policy.json';

let root: string;
/** A normal user's own folder (nobody, 65534), for the runs as that user. */
let nobodyRoot: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'airlock-organisation-cli-'));
  nobodyRoot = mkdtempSync(join(tmpdir(), 'airlock-organisation-cli-user-'));
  chownSync(nobodyRoot, 65534, 65534);
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(nobodyRoot, { recursive: true, force: true });
});

/** The shell words that put `policy` at the real path (null: none), owned by `owner` (root unless said). */
function writePolicy(policy: object | string | null, owner = 0): string {
  const text = policy === null ? null : typeof policy === 'string' ? policy : JSON.stringify(policy, null, 2);
  return text === null ? 'true' : `printf '%s' ${sh(text)} > ${POLICY} && chmod 0644 ${POLICY} && chown ${owner}:${owner} ${POLICY}`;
}

/** The environment of the person the CLI runs as: root's data folder, or a normal user's (nobody, 65534). */
function envOf(as: 'root' | 'nobody'): NodeJS.ProcessEnv {
  const home = as === 'root' ? root : nobodyRoot;
  return { ...process.env, AIRLOCK_DATA_DIR: join(home, 'data'), AIRLOCK_AUDIT_KEY_FILE: join(home, 'key'), HOME: join(home, 'home') };
}

/** The command line that runs `airlock ARGS` as `as`. */
function airlockWords(args: string[], as: 'root' | 'nobody' = 'root'): string {
  return `${as === 'nobody' ? 'setpriv --reuid=65534 --regid=65534 --clear-groups ' : ''}${sh(process.execPath)} ${sh(BIN)} ${args.map(sh).join(' ')}`;
}

/** Runs `airlock ARGS` with `policy` at the real path (null: none), in its own mount namespace. */
function airlock(policy: object | string | null, args: string[], options: { owner?: number; as?: 'root' | 'nobody' } = {}) {
  const as = options.as ?? 'root';
  const result = inPolicyNamespace(`${writePolicy(policy, options.owner)} && ${airlockWords(args, as)}`, { env: envOf(as) });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** The same without blocking this process (for a receiver the test serves itself). */
async function airlockAsync(policy: object | string | null, args: string[]) {
  const result = await startInPolicyNamespace(`${writePolicy(policy)} && ${airlockWords(args)}`, { env: envOf('root') }).done;
  return { code: result.status, out: result.stdout, err: result.stderr };
}

async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!canUseRealPolicyPaths())('airlock under an organisation policy at /etc/airlock/managed-policy.json', () => {
  beforeAll(() => {
    const added = airlock(null, ['--yes', 'add', 'echo', '--', process.execPath, ECHO]);
    expect(added.code, added.err).toBe(0);
  }, 120_000);

  it('settings, --json and doctor show each lock as set by the organisation, with the key and the file', () => {
    const policy = { version: 1, mode: 'strict', allowTrust: false, allowHttpGateway: false, network: { allowedDomains: ['*.acme.example'] }, deniedServers: [{ npm: '@evil/*' }] };
    const shown = airlock(policy, ['settings']);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain(`Organisation policy: in force (${POLICY})`);
    expect(shown.out).toContain(`Policy mode: strict (set by your organisation (mode: strict, ${POLICY}))`);
    expect(shown.out).toContain(`trust: set by your organisation (allowTrust: false, ${POLICY})`);
    expect(shown.out).toContain('network grants only within: *.acme.example (network.allowedDomains)');
    const json = JSON.parse(airlock(policy, ['--json', 'settings']).out) as { policyMode: string; organisation: { status: string; locks: Array<{ key: string; location: string }> } };
    expect(json.policyMode).toBe('strict');
    expect(json.organisation.status).toBe('active');
    expect(json.organisation.locks.map((lock) => lock.key)).toEqual(['mode', 'allowTrust', 'allowHttpGateway']);
    expect(json.organisation.locks.every((lock) => lock.location === POLICY)).toBe(true);
    const doctor = airlock(policy, ['--json', 'doctor']);
    expect((JSON.parse(doctor.out) as { organisation: { locks: unknown[] } }).organisation.locks).toHaveLength(3);
    expect(airlock(policy, ['doctor']).out).toContain(`trust: set by your organisation (allowTrust: false, ${POLICY})`);
  });

  it.each([
    ['mode', { mode: 'strict' }, ['mode', 'default']],
    ['allowTrust', { allowTrust: false }, ['trust', 'echo', 'on']],
    ['allowHttpGateway', { allowHttpGateway: false }, ['gateway', '--http', '0']],
    ['allowAlwaysForDestructive', { allowAlwaysForDestructive: false }, ['--yes', 'rules', 'add', 'echo', 'echo', 'allow', '--confirm-destructive']],
    ['allowSamplingWithoutReview', { allowSamplingWithoutReview: false }, ['--yes', 'requests', 'echo', '--sampling', 'always']],
    ['registry', { registry: 'https://registry.acme.example' }, ['registry', 'set', 'https://other.example']],
    ['network.allowedDomains', { network: { allowedDomains: ['*.acme.example'] } }, ['--yes', 'grant', 'echo', '--domain', 'api.github.com']],
    ['network.deniedDomains', { network: { deniedDomains: ['api.github.com'] } }, ['--yes', 'grant', 'echo', '--domain', 'api.github.com']],
    ['allowWritesOutsideHome', { allowWritesOutsideHome: false }, ['--yes', 'grant', 'echo', '--write', '/tmp']],
    ['audit.otlp', { audit: { otlp: { endpoint: 'http://127.0.0.1:9/' } } }, ['settings', 'audit-export', 'http://127.0.0.1:10/']],
    ['deniedServers', { deniedServers: [{ command: ['**/node', '**/echo.mjs'] }] }, ['--yes', 'add', 'echo2', '--', process.execPath, ECHO]],
    ['allowedServers', { allowedServers: [{ npm: '@acme/*' }] }, ['--yes', 'add', 'echo3', '--', process.execPath, ECHO]],
  ])('%s: refused with exit 7 and the key named', (key, policy, args) => {
    const refused = airlock({ version: 1, ...policy }, args);
    expect(refused.code, refused.out + refused.err).toBe(7);
    expect(refused.err).toContain(key);
  });

  it('after all those refusals nothing changed: no trust, no grants, no rules, no servers added, the default mode and registry', () => {
    const shown = JSON.parse(airlock(null, ['--json', 'show', 'echo']).out) as { trusted: boolean; profile: { network: { allowedDomains: string[] }; filesystem: { write: string[] } } };
    expect(shown.trusted).toBe(false);
    expect(shown.profile.network.allowedDomains).toEqual([]);
    expect(shown.profile.filesystem.write).toEqual([]);
    const settings = JSON.parse(airlock(null, ['--json', 'settings']).out) as { policyMode: string; auditExport: { state: string } };
    expect(settings.policyMode).toBe('default');
    expect(settings.auditExport.state).toBe('off');
    expect((JSON.parse(airlock(null, ['--json', 'rules']).out) as unknown[]).length).toBe(0);
    expect((JSON.parse(airlock(null, ['--json', 'list']).out) as Array<{ name: string }>).map((server) => server.name)).toEqual(['echo']);
  }, 60_000);

  it('a server the policy denies is shown blocked with the rule, not removed, and runs again without the policy', () => {
    const policy = { version: 1, deniedServers: [{ command: ['**/node', '**/echo.mjs'] }] };
    const list = airlock(policy, ['--json', 'list']);
    const echo = (JSON.parse(list.out) as Array<{ name: string; blockedByOrganisation?: { key: string; rule: string } }>).find((server) => server.name === 'echo')!;
    expect(echo.blockedByOrganisation).toMatchObject({ key: 'deniedServers', rule: '{"command":["**/node","**/echo.mjs"]}' });
    const called = airlock(policy, ['call', 'echo', 'echo', '--args', '{"message":"hi"}']);
    expect(called.code).not.toBe(0);
    expect(called.err + called.out).toContain('deniedServers');
    // Without the policy it is no longer blocked (the call then only needs the person's confirmation: echo does not say it is not destructive).
    const unblocked = (JSON.parse(airlock(null, ['--json', 'list']).out) as Array<{ name: string; blockedByOrganisation?: unknown }>).find((server) => server.name === 'echo')!;
    expect(unblocked.blockedByOrganisation).toBeUndefined();
    const again = airlock(null, ['call', 'echo', 'echo', '--args', '{"message":"hi"}']);
    expect(again.err).not.toContain('organisation');
  }, 60_000);

  it('an unreadable policy: nothing it could forbid runs, and the file and line are named', () => {
    const broken = '{\n  "version": 1,\n  "allowTrust": false,\n  "mode" "strict"\n}';
    const shown = airlock(broken, ['settings']);
    expect(shown.out).toContain('Organisation policy: COULD NOT BE READ');
    expect(shown.out).toContain(`${POLICY}, line 4`);
    // Nothing is streamed anywhere meanwhile (the policy might name the organisation's collector).
    expect(shown.out).toContain(`Audit log streaming (OpenTelemetry): PAUSED — Paused: your organisation's policy could not be read (${POLICY}, line 4`);
    const called = airlock(broken, ['call', 'echo', 'echo', '--args', '{"message":"hi"}']);
    expect(called.code).not.toBe(0);
    expect(called.err + called.out).toContain(`${POLICY}, line 4`);
    const unknown = airlock({ version: 1, alowTrust: false }, ['doctor']);
    expect(unknown.out).toMatch(/managed-policy\.json, line 3 \(alowTrust\): unknown key "alowTrust"/);
  }, 60_000);
  it('a policy file someone other than an administrator can change is ignored, loudly: settings and doctor name it and why, and it locks nothing', () => {
    const policy = { version: 1, allowTrust: false, mode: 'strict' };
    // Owned by a normal user (read by root).
    const shown = airlock(policy, ['settings'], { owner: 65534 });
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('Organisation policy: none');
    expect(shown.out).toContain(`IGNORED ${POLICY}: ${POLICY} belongs to user 65534, not to root: that user can change it`);
    expect(shown.out).toContain('Policy mode: default');
    const json = JSON.parse(airlock(policy, ['--json', 'settings'], { owner: 65534 }).out) as { policyMode: string; organisation: { status: string; ignored: Array<{ location: string; why: string }>; locks: unknown[] } };
    expect(json.organisation).toMatchObject({ status: 'none', locks: [], ignored: [{ location: POLICY, why: expect.stringContaining('belongs to user 65534') }] });
    const doctor = airlock(policy, ['doctor'], { owner: 65534 });
    expect(doctor.out).toContain(`IGNORED ${POLICY}`);
    expect(doctor.out + doctor.err).toMatch(/Airlock ignored \/etc\/airlock\/managed-policy\.json as an organisation policy: .*Only a file that only an administrator can change is a policy\./);
    // The person's own file, read by that person (a normal user): the same.
    const asUser = airlock(policy, ['settings'], { owner: 65534, as: 'nobody' });
    expect(asUser.code, asUser.err).toBe(0);
    expect(asUser.out).toContain(`IGNORED ${POLICY}: ${POLICY} belongs to user 65534`);
    expect(asUser.out).toContain('Policy mode: default');
    // The administrator's file, read by the same normal user: in force.
    const admin = airlock(policy, ['settings'], { as: 'nobody' });
    expect(admin.out).toContain(`Organisation policy: in force (${POLICY})`);
    expect(admin.out).toContain(`Policy mode: strict (set by your organisation (mode: strict, ${POLICY}))`);
  }, 120_000);

  it('a server the organisation provides: settings prints the command; add --provided shows the disclosure and installs it from the policy (never unasked); then it shows as installed', () => {
    const argv = [process.execPath, ECHO, '--team'];
    const policy = { version: 1, allowedServers: [{ npm: '@acme/*' }], servers: { 'team-echo': { command: argv, description: 'The team’s echo' } } };
    const shown = airlock(policy, ['settings']);
    expect(shown.out).toContain(`provided by your organisation: team-echo — ${argv.join(' ')} — install: airlock add team-echo --provided`);
    // Without a yes (no terminal to ask on): the disclosure is shown, nothing is installed.
    const unasked = airlock(policy, ['add', 'team-echo', '--provided']);
    expect(unasked.code).not.toBe(0);
    expect(unasked.out).toContain(`${ECHO} --team`);
    expect((JSON.parse(airlock(policy, ['--json', 'list']).out) as Array<{ name: string }>).map((server) => server.name)).toEqual(['echo']);
    // A name the policy does not provide.
    const unknown = airlock(policy, ['--yes', 'add', 'other', '--provided', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('Your organisation\'s policy provides no server named “nope”; it provides: team-echo.');
    const added = airlock(policy, ['--yes', 'add', 'team-echo', '--provided']);
    expect(added.code, added.err).toBe(0);
    expect(added.out).toContain(`${ECHO} --team`);
    expect(added.out).toContain('Added team-echo; it runs in its sandbox.');
    expect(airlock(policy, ['settings']).out).toContain(`provided by your organisation: team-echo — ${argv.join(' ')} (installed as team-echo)`);
    const json = JSON.parse(airlock(policy, ['--json', 'settings']).out) as { organisation: { providedServers: Array<{ installedAs?: string }> } };
    expect(json.organisation.providedServers[0]!.installedAs).toBe('team-echo');
    // Provided, so the allow list that does not name it does not block it; the person's own echo is blocked.
    const list = JSON.parse(airlock(policy, ['--json', 'list']).out) as Array<{ name: string; blockedByOrganisation?: { key: string } }>;
    expect(list.find((server) => server.name === 'team-echo')!.blockedByOrganisation).toBeUndefined();
    expect(list.find((server) => server.name === 'echo')!.blockedByOrganisation?.key).toBe('allowedServers');
    expect(airlock(null, ['--yes', 'remove', 'team-echo']).code).toBe(0);
  }, 180_000);

  it('streaming turned on with `airlock settings audit-export URL`: shown with the header’s name only; an Airlock process streams the log to the collector with it; `airlock audit export --otlp` sends a range by hand', async () => {
    const receiver = new OtlpReceiver();
    await receiver.start();
    try {
      const on = await airlockAsync(null, ['settings', 'audit-export', receiver.url, '--protocol', 'http/json', '--header', 'x-collector-key=k-cli-123']);
      expect(on.code, on.err).toBe(0);
      expect(on.out).toContain(`Audit log streaming (OpenTelemetry): ${receiver.url}/v1/logs (http/json; your setting) with headers x-collector-key`);
      expect(on.out + on.err).not.toContain('k-cli-123');
      const json = JSON.parse((await airlockAsync(null, ['--json', 'settings'])).out) as { auditExport: { from: string; endpoint: string; protocol: string; headerNames: string[] } };
      expect(json.auditExport).toMatchObject({ from: 'settings', endpoint: `${receiver.url}/v1/logs`, protocol: 'http/json', headerNames: ['x-collector-key'] });
      expect(JSON.stringify(json)).not.toContain('k-cli-123');
      // The turning-on is itself in the log (header names, never values).
      const log = () => readFileSync(join(root, 'data', 'audit', 'audit.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { seq: number; type: string; changes?: string[] });
      expect(log().some((entry) => entry.type === 'change' && entry.changes?.some((line) => line.includes(`audit log streaming: ${receiver.url}`) && line.includes('headers x-collector-key')))).toBe(true);
      expect(JSON.stringify(log())).not.toContain('k-cli-123');
      // A long-running Airlock process (a gateway an app started) streams the whole log there, with the header.
      const head = log().at(-1)!.seq;
      const gateway = startInPolicyNamespace(airlockWords(['gateway', '--stdio']), { env: envOf('root') });
      try {
        await until(() => (receiver.seqs().at(-1) ?? 0) >= head, 'the log at the collector');
      } finally {
        gateway.child.stdin.end();
        await gateway.done;
      }
      expect(receiver.seqs().slice(0, head)).toEqual(Array.from({ length: head }, (_, k) => k + 1));
      expect(receiver.requests[0]!.contentType).toBe('application/json');
      expect(receiver.requests[0]!.headers['x-collector-key']).toBe('k-cli-123');
      expect(receiver.records[0]!.resource['service.name']).toBe('airlock');
      // By hand: a range, decoded by the receiver.
      const before = receiver.requests.length;
      const sent = await airlockAsync(null, ['audit', 'export', '--otlp', '--from', '2', '--to', '4']);
      expect(sent.code, sent.err).toBe(0);
      expect(sent.out).toContain(`Sent 3 entries (#2–#4) to ${receiver.url}/v1/logs.`);
      const byHand = receiver.requests.slice(before).flatMap((request) => request.records.map((record) => record.attributes['airlock.seq']));
      expect(byHand.filter((seq) => Number(seq) >= 2 && Number(seq) <= 4).sort()).toEqual([2, 3, 4]);
      const usage = await airlockAsync(null, ['audit', 'export', '--otlp', '--from', 'zero']);
      expect(usage.code).toBe(2);
      expect(usage.err).toContain('--from is an entry\'s number (1 or more), not “zero”.');
    } finally {
      await airlockAsync(null, ['settings', 'audit-export', 'off']);
      await receiver.stop();
    }
  }, 180_000);
});
