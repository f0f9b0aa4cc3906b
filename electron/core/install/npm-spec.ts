/**
 * An npm package as a person writes it (`name@range`), checked: used by the
 * npm source and by the package runners' lines (`npx -y PKG`) without
 * loading the npm source itself.
 */
import { NpmSourceError } from './source-errors';

/** A package name and the range, tag or version asked for. */
export interface NpmPackageSpec {
  name: string;
  /** `latest` when none was given. */
  range: string;
}

// npm's rules for new package names (validate-npm-package-name), lowercase only.
const NAME = /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/;
const RANGE = /^[\w.^~<>=*|+ -]+$/;

/**
 * Parses `name` or `name@range` (scoped names included). Only registry
 * packages: git URLs, tarballs, `file:` and aliases are refused.
 * SECURITY (invariant 7): the name and range are checked before they reach
 * npm's command line, so neither can be read as an option (`--…`) or a URL.
 */
export function parseNpmSpec(spec: string): NpmPackageSpec {
  const text = spec.trim();
  const at = text.indexOf('@', text.startsWith('@') ? 1 : 0);
  const name = at === -1 ? text : text.slice(0, at);
  const range = at === -1 ? 'latest' : text.slice(at + 1).trim();
  if (!NAME.test(name) || name.length > 214) {
    throw new NpmSourceError(`“${spec}” is not an npm package name (lowercase letters, digits, - . _ ~, optionally @scope/)`);
  }
  if (!range || range.startsWith('-') || !RANGE.test(range)) {
    throw new NpmSourceError(`“${range}” is not a version, range or tag Airlock accepts for ${name}`);
  }
  return { name, range };
}
