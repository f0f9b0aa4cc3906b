/**
 * Grants are pinned: a read or write grant is resolved (symlinks followed)
 * once, when it is given, and at every start it must still resolve to the
 * same place. Otherwise anything that can write one of the grant's parents
 * (another server with a grant on `w/`) could re-point it (`w/out` → a
 * symlink to an ungranted folder) and the server granted `w/out` would write
 * there at its next start, while every screen still said `w/out`.
 */
import { realpathSync } from 'node:fs';
import type { SandboxProfile } from '../../../shared/domain';
import { SandboxProfileError } from './errors';

type Profile = Omit<SandboxProfile, 'unsandboxed'> & Pick<Partial<SandboxProfile>, 'unsandboxed'>;

/** Every path a profile grants, read or write, once each. */
function grantedPaths(profile: Pick<Profile, 'filesystem'>): string[] {
  return [...new Set([...profile.filesystem.read, ...profile.filesystem.write])];
}

/**
 * The profile with `filesystem.pinned` set for every grant: a grant that was
 * already given keeps the pin it was given with (`previous`); a new one is
 * resolved now. Pins a client sent are ignored. A path that does not resolve
 * (missing) gets no pin; the launcher refuses it anyway.
 */
export function pinGrants<P extends Profile>(next: P, previous?: Pick<Profile, 'filesystem'>): P {
  const before = previous ? new Set(grantedPaths(previous)) : new Set<string>();
  const pinned: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const path of grantedPaths(next)) {
    const kept = before.has(path) ? previous?.filesystem.pinned?.[path] : undefined;
    if (kept !== undefined) {
      pinned[path] = kept;
      continue;
    }
    try {
      pinned[path] = realpathSync(path);
    } catch {
      // missing: no pin (the launcher refuses a grant that does not exist)
    }
  }
  return { ...next, filesystem: { ...next.filesystem, pinned: { ...pinned } } };
}

/** True when some grant has no pin yet (a store from before pinning). */
export function needsPins(profile: Pick<Profile, 'filesystem'>): boolean {
  return grantedPaths(profile).some((path) => profile.filesystem.pinned?.[path] === undefined);
}

/** A grant that resolves somewhere else than when it was given. */
export class GrantMovedError extends SandboxProfileError {
  constructor(
    readonly kind: 'read' | 'write',
    readonly path: string,
    readonly pinnedTo: string,
    readonly nowTo: string,
    serverName: string,
  ) {
    super(
      `The ${kind} grant ${path} has moved: it led to ${pinnedTo} when it was granted, and now leads to ${nowTo} ` +
        '(a part of the path was replaced, for example by a symbolic link). ' +
        `Airlock did not start ${serverName}. If the new place is what you want, take the grant back and give it again ` +
        `(airlock revoke ${serverName} --${kind} ${path}, then airlock grant ${serverName} --${kind} ${path}; or on the server's page in the app).`,
    );
    this.name = 'GrantMovedError';
  }
}

/**
 * Resolves a grant now and checks it against its pin. Returns where it
 * resolves; throws `GrantMovedError` when a pin exists and differs.
 */
export function checkPinned(kind: 'read' | 'write', path: string, resolved: string, profile: Pick<Profile, 'filesystem'>, serverName: string): string {
  const pin = profile.filesystem.pinned?.[path];
  // SECURITY (invariant 5): the server gets exactly the place the person granted.
  if (pin !== undefined && pin !== resolved) throw new GrantMovedError(kind, path, pin, resolved, serverName);
  return resolved;
}
