/**
 * An imported `npx` or `uvx` entry resolved into a pinned candidate — one
 * exact version (npm: with its integrity; PyPI: a lock of every file by its
 * hash), to be installed once into the server's own folder — keeping the
 * entry's arguments, environment, secrets and origin. Called only when the
 * person chose to import that entry.
 */
import type { InstallCandidate } from './candidate';
import type { ImportEntry, PackageImportOffer } from './import-offers';
import { NpmSourceError, resolveNpm, type NpmOptions } from './npm-source';
import { PypiSourceError, resolvePypi, type ResolvePypiOptions } from './pypi-source';

/** Turns an importable npx entry into a pinned npm candidate (see `resolveNpm`). */
export async function resolveImportedNpm(
  entry: ImportEntry,
  options: NpmOptions & { serverDir: string; nodePath?: string; home?: string },
): Promise<InstallCandidate> {
  if (entry.status !== 'importable' || entry.offer.kind !== 'npm') throw new NpmSourceError(`“${entry.entry}” is not an npm entry`);
  const offer = entry.offer.npm;
  const candidate = await resolveNpm(offer.packageSpec, { ...options, ...entryAsks(entry, offer) });
  return asImported(entry, offer, candidate, '');
}

/** Turns an importable `uvx` entry into a pinned PyPI candidate (see `resolvePypi`). */
export async function resolveImportedPypi(entry: ImportEntry, options: ResolvePypiOptions): Promise<InstallCandidate> {
  if (entry.status !== 'importable' || entry.offer.kind !== 'pypi') throw new PypiSourceError(`“${entry.entry}” is not a Python package entry`);
  const offer = entry.offer.pypi;
  const candidate = await resolvePypi(offer.packageSpec, { ...options, ...entryAsks(entry, offer), ...(offer.scriptName ? { scriptName: offer.scriptName } : {}) });
  return asImported(entry, offer, candidate, ' (a download from PyPI at every start); Airlock installs it once, pinned, and runs it from its own folder');
}

type Importable = Extract<ImportEntry, { status: 'importable' }>;

/** What the entry's own command line asks of the package: its arguments, its environment, its name here. */
function entryAsks(entry: Importable, offer: PackageImportOffer): { userArgs: string[]; serverEnv: Record<string, string>; name: string } {
  return { userArgs: offer.userArgs, serverEnv: offer.env, name: entry.suggestedName };
}

/** A resolved candidate that keeps what the entry asked for (its secrets, settings, warnings) and says where it came from. */
function asImported(entry: Importable, offer: PackageImportOffer, candidate: InstallCandidate, instead: string): InstallCandidate {
  return {
    ...candidate,
    importedFrom: entry.origin,
    requested: { ...candidate.requested, secrets: offer.secrets, userConfig: offer.userConfig },
    warnings: [...offer.warnings, `imported from ${entry.origin.path} (“${entry.origin.entry}”), where it ran ${offer.originalArgv.join(' ')}${instead}`, ...candidate.warnings],
  };
}
