/**
 * The contract's plain helpers and words: values both sides use that need no
 * schema — looking a name up as data, what a server name may be, what a sign-out did, the kinds of
 * address and device a server's screen may ask for and how people read
 * them. No zod here, so the window's first screen loads without the
 * schemas (which stay in domain.ts, screens.ts and ipc.ts, built from these
 * same lists); those modules re-export everything here.
 */

/**
 * The entry a record holds under `name` as its own; never an inherited
 * property (`constructor`, `toString`, …) of a plain object.
 */
export function ownEntry<V>(record: Readonly<Record<string, V>> | null | undefined, name: string): V | undefined {
  return record !== null && record !== undefined && Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined;
}

/** A server's short name: lowercase letters, digits and dashes, starting with a letter or digit, at most 48 (ServerNameSchema is built from these). */
export const SERVER_NAME_PATTERN = /^[a-z0-9][a-z0-9-]*$/;
export const SERVER_NAME_MAX = 48;

/** True when `name` is a valid server name (what ServerNameSchema accepts). */
export function isServerName(name: string): boolean {
  return name.length >= 1 && name.length <= SERVER_NAME_MAX && SERVER_NAME_PATTERN.test(name);
}

/** What a person is told once a sign-in ended: what happened here, what the server did, and what is left to do. */
export function signOutWords(outcome: { revoked: 'yes' | 'not-offered' | 'failed'; detail?: string | undefined }): string {
  if (outcome.revoked === 'yes') return 'The server revoked the sign-in, and its tokens were deleted here.';
  const left = "they may work there until they expire: to end that, remove Airlock's access in your account at the service";
  if (outcome.revoked === 'not-offered') return `The tokens were deleted here. The server offers no way to revoke them, so ${left}.`;
  return `The tokens were deleted here, but revoking them at the server failed (${outcome.detail ?? 'no reason given'}), so ${left}.`;
}

/** What a declared web address of a screen is for, as the CSP directive it maps to. */
export const SCREEN_DOMAIN_KINDS = ['connect', 'resource', 'frame', 'baseUri'] as const;
export type ScreenDomainKind = (typeof SCREEN_DOMAIN_KINDS)[number];

/** The device permissions a screen may ask for. */
export const SCREEN_PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;
export type ScreenPermission = (typeof SCREEN_PERMISSIONS)[number];

/** A screen's web addresses, by what they are for. */
export type ScreenDomains = Record<ScreenDomainKind, string[]>;

/** No addresses of any kind. */
export function noScreenDomains(): ScreenDomains {
  return { connect: [], resource: [], frame: [], baseUri: [] };
}

/** How people read each kind (disclosure, `airlock show`). */
export const SCREEN_DOMAIN_WORDS: Record<ScreenDomainKind, string> = {
  connect: 'connect to',
  resource: 'load scripts, styles, images and fonts from',
  frame: 'show pages from',
  baseUri: 'use as its base address',
};

/** How people read each permission. */
export const SCREEN_PERMISSION_WORDS: Record<ScreenPermission, string> = {
  camera: 'the camera',
  microphone: 'the microphone',
  geolocation: 'your location',
  clipboardWrite: 'writing to the clipboard',
};

/**
 * The rows that matter to a server with this profile: a row about the
 * files inside write grants only when it has one. The install disclosure
 * shows these (the CLI's, and the window's as the person edits the grants).
 */
export function guaranteesFor<T extends { onlyWith?: 'write-grants' | undefined }>(rows: readonly T[], profile: { filesystem: { write: readonly string[] } }): T[] {
  return rows.filter((row) => row.onlyWith === undefined || (row.onlyWith === 'write-grants' && profile.filesystem.write.length > 0));
}
