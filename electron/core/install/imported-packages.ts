/**
 * An imported `npx` or `uvx` entry resolved into a pinned candidate — one
 * exact version (npm: with its integrity; PyPI: a lock of every file by its
 * hash), to be installed once into the server's own folder — keeping the
 * entry's arguments, environment, secrets and origin. Called only when the
 * person chose to import that entry.
 */
import type { InstallCandidate } from './candidate';
import type { ImportEntry } from './import-offers';
import { NpmSourceError, resolveNpm, type NpmOptions } from './npm-source';
import { PypiSourceError, resolvePypi, type ResolvePypiOptions } from './pypi-source';

/** Turns an importable npx entry into a pinned npm candidate (see `resolveNpm`). */
export async function resolveImportedNpm(
  entry: ImportEntry,
  options: NpmOptions & { serverDir: string; nodePath?: string; home?: string },
): Promise<InstallCandidate> {
  if (entry.status !== 'importable' || entry.offer.kind !== 'npm') throw new NpmSourceError(`“${entry.entry}” is not an npm entry`);
  const offer = entry.offer.npm;
  const candidate = await resolveNpm(offer.packageSpec, {
    ...options,
    userArgs: offer.userArgs,
    serverEnv: offer.env,
    name: entry.suggestedName,
  });
  return {
    ...candidate,
    importedFrom: entry.origin,
    requested: { ...candidate.requested, secrets: offer.secrets, userConfig: offer.userConfig },
    warnings: [...offer.warnings, `imported from ${entry.origin.path} (“${entry.origin.entry}”), where it ran ${offer.originalArgv.join(' ')}`, ...candidate.warnings],
  };
}

/** Turns an importable `uvx` entry into a pinned PyPI candidate (see `resolvePypi`). */
export async function resolveImportedPypi(entry: ImportEntry, options: ResolvePypiOptions): Promise<InstallCandidate> {
  if (entry.status !== 'importable' || entry.offer.kind !== 'pypi') throw new PypiSourceError(`“${entry.entry}” is not a Python package entry`);
  const offer = entry.offer.pypi;
  const candidate = await resolvePypi(offer.packageSpec, {
    ...options,
    userArgs: offer.userArgs,
    serverEnv: offer.env,
    name: entry.suggestedName,
    ...(offer.scriptName ? { scriptName: offer.scriptName } : {}),
  });
  return {
    ...candidate,
    importedFrom: entry.origin,
    requested: { ...candidate.requested, secrets: offer.secrets, userConfig: offer.userConfig },
    warnings: [
      ...offer.warnings,
      `imported from ${entry.origin.path} (“${entry.origin.entry}”), where it ran ${offer.originalArgv.join(' ')} (a download from PyPI at every start); Airlock installs it once, pinned, and runs it from its own folder`,
      ...candidate.warnings,
    ],
  };
}
