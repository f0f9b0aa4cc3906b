/**
 * When each grant was last used (a real file in a temporary data folder, a
 * clock the test moves): a grant is tracked from the first write after it
 * exists, a use is kept at the hour, two Airlock processes' times merge (the
 * later wins), a grant unused for 30 days is suggested for removal and a read
 * grant never is; names are data.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type ServerRecord } from '../../../shared/domain';
import { GrantUse, GRANT_USE_FILE, UNUSED_AFTER_MS } from '../../../electron/core/claims/grant-use';

const DAY = 24 * 60 * 60 * 1000;

function record(name: string): ServerRecord {
  const profile = defaultSandboxProfile();
  profile.filesystem.read.push('/home/me/reference');
  profile.filesystem.write.push('/home/me/notes');
  profile.network.allowedDomains.push('api.example.com');
  profile.secrets.push('API_KEY');
  return { name, spec: { command: 'node', args: [], env: {} }, provenance: { kind: 'local', executable: '/usr/bin/node', executableSha256: 'x' }, profile, trusted: false, enabled: true, approvedTools: {}, createdAt: '2026-01-01T00:00:00.000Z' };
}

describe('GrantUse', () => {
  let dir: string;
  let now: number;
  let records: ServerRecord[];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'airlock-grant-use-'));
    now = Date.parse('2026-12-01T12:00:00.000Z');
    records = [record('constructor')];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const use = () => new GrantUse(dir, () => records, () => now);
  const view = (u: GrantUse, kind: string) => u.views(records[0]!).find((grant) => grant.kind === kind)!;

  it('lists every grant; a read cannot be seen used; nothing is suggested before 30 days of keeping track', () => {
    const u = use();
    expect(u.views(records[0]!).map((grant) => [grant.kind, grant.value, grant.observable])).toEqual([
      ['read', '/home/me/reference', false],
      ['write', '/home/me/notes', true],
      ['domain', 'api.example.com', true],
      ['secret', 'API_KEY', true],
    ]);
    expect(view(u, 'read').note).toContain('cannot see reads');
    u.flush();
    now += UNUSED_AFTER_MS - DAY;
    expect(u.views(records[0]!).some((grant) => grant.suggestRemoval)).toBe(false);
    now += 2 * DAY;
    const later = use();
    expect(later.views(records[0]!).filter((grant) => grant.suggestRemoval).map((grant) => grant.kind)).toEqual(['write', 'domain', 'secret']);
    expect(view(later, 'domain').note).toBe('Not used in the 31 days Airlock has kept track of it.');
  });

  it('a use is kept and shown; another process’s later use wins, an earlier one does not', () => {
    const u = use();
    u.noteWrite('constructor', '/home/me/notes');
    u.noteCall('constructor', ['API_KEY']);
    u.flush();
    const other = use();
    now += 2 * DAY;
    other.noteDomain('constructor', 'api.example.com');
    other.flush();
    // The first process writes again, with nothing newer than what the other wrote.
    u.noteWrite('constructor', '/home/me/notes');
    u.flush();
    const file = JSON.parse(readFileSync(join(dir, GRANT_USE_FILE), 'utf8')) as { servers: Record<string, Record<string, { used?: string }>> };
    const stored = new Map(Object.entries(file.servers)).get('constructor')!;
    expect(stored['domain\napi.example.com']!.used).toBe(new Date(now).toISOString());
    expect(view(u, 'write').note).toBe('Last used today.');
    expect(view(u, 'secret').note).toBe('Last used 2 days ago (when the server last handled a call holding it).');
    now += UNUSED_AFTER_MS;
    expect(view(u, 'write').suggestRemoval).toBe(true);
  });

  it('forgets a grant taken away, and a server removed', () => {
    const u = use();
    u.noteWrite('constructor', '/home/me/notes');
    u.flush();
    records = [{ ...records[0]!, profile: { ...records[0]!.profile, filesystem: { ...records[0]!.profile.filesystem, write: [] } } }];
    u.flush();
    let file = JSON.parse(readFileSync(join(dir, GRANT_USE_FILE), 'utf8')) as { servers: Record<string, Record<string, unknown>> };
    expect(Object.keys(new Map(Object.entries(file.servers)).get('constructor')!)).not.toContain('write\n/home/me/notes');
    records = [];
    u.flush();
    file = JSON.parse(readFileSync(join(dir, GRANT_USE_FILE), 'utf8')) as { servers: Record<string, Record<string, unknown>> };
    expect(Object.keys(file.servers)).toEqual([]);
  });
});
