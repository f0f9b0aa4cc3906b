/**
 * The shape of another app's MCP config, as Airlock checks it: what a file
 * that cannot be imported is told, and the small tests every part of the
 * import shares (an object, a name a server or variable may have).
 */

/** A config file that cannot be imported at all, naming the file and what was wrong. */
export class ConfigImportError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'ConfigImportError';
  }
}

/** Names that must never index a plain object (SECURITY: names are data). */
export const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A valid environment variable name. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Env var names whose literal values are credentials more often than not. */
export const SECRET_NAME = /(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH)/i;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** What a value is, in words ("a list", "a number"), for a message about a config. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
