/**
 * Whether an entry of another app's config is a server Airlock already has:
 * the same npm or PyPI package with the same arguments, the same remote
 * address, or the same command line. Importing it again would make a copy
 * (`memory-2`) that runs beside the first; the import says which server it
 * already is instead. Pure: reads the entry and the saved records only.
 */
import { sep } from 'node:path';
import type { ServerRecord } from '../../../shared/domain';
import type { ImportEntry } from './import-offers';
import { parseNpmSpec } from './npm-source';
import { normalisePypiName, parsePypiSpec } from './pypi-source';

/** The server an entry already is, and why Airlock says so. */
export interface ExistingServer {
  server: string;
  /** In words: "the same npm package, @scope/name, with the same arguments". */
  why: string;
}

/**
 * The saved server `entry` already is, or undefined. Its settings count too
 * (two memory servers that keep their graphs in different files are two
 * servers) — unless the server was imported from this very entry and its
 * settings were changed in Airlock since — and so do credentials written in
 * the entry (`heldSecret` reads the one a saved server holds).
 */
export function existingServerFor(entry: ImportEntry, records: readonly ServerRecord[], heldSecret: (server: string, name: string) => string | undefined = () => undefined): ExistingServer | undefined {
  if (entry.status !== 'importable') return undefined;
  const offer = entry.offer;
  for (const record of records) {
    const provenance = record.provenance;
    // A credential written in the entry that differs from the one the server holds: another account, so another server.
    if (Object.entries(entry.secretValues).some(([name, value]) => heldSecret(record.name, name) !== value)) continue;
    const settled = (env: Readonly<Record<string, string>>) => sameEnv(env, record.spec.env) || (record.importedFrom?.path === entry.origin.path && record.importedFrom.entry === entry.origin.entry);
    const settings = Object.keys(record.spec.env).length ? ' and settings' : '';
    if (offer.kind === 'npm' && provenance.kind === 'npm') {
      const name = packageName(() => parseNpmSpec(offer.npm.packageSpec).name);
      if (name === provenance.name && sameList(offer.npm.userArgs, argsAfterPackage(record, provenance.installDir)) && settled(offer.npm.env)) {
        return { server: record.name, why: `the same npm package, ${name}, with the same arguments${settings}` };
      }
    } else if (offer.kind === 'pypi' && provenance.kind === 'pypi') {
      const name = packageName(() => parsePypiSpec(offer.pypi.packageSpec).name);
      if (name !== undefined && normalisePypiName(name) === normalisePypiName(provenance.name) && sameList(offer.pypi.userArgs, argsAfterPackage(record, provenance.installDir)) && settled(offer.pypi.env)) {
        return { server: record.name, why: `the same Python package, ${provenance.name}, with the same arguments${settings}` };
      }
    } else if (offer.kind === 'remote' && record.spec.remote) {
      if (sameUrl(offer.remote.url, record.spec.remote.url)) return { server: record.name, why: `the same address, ${record.spec.remote.url}` };
    } else if (offer.kind === 'local' && provenance.kind === 'local' && !record.spec.remote) {
      const spec = offer.candidate.spec;
      if (spec.command === record.spec.command && sameList(spec.args, record.spec.args) && settled(spec.env)) return { server: record.name, why: `the same command line${settings}` };
    }
  }
  return undefined;
}

function sameEnv(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key]);
}

/** The arguments a packaged server was given after its own program (what the person wrote after the package). */
function argsAfterPackage(record: ServerRecord, installDir: string): string[] {
  const inside = installDir + sep;
  if (record.spec.command.startsWith(inside)) return [...record.spec.args];
  const at = record.spec.args.findIndex((arg) => arg.startsWith(inside));
  return at < 0 ? [...record.spec.args] : record.spec.args.slice(at + 1);
}

function packageName(read: () => string): string | undefined {
  try {
    return read();
  } catch {
    return undefined; // Not a package name Airlock reads: it cannot be one Airlock installed.
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b; // Not a URL the parser reads: compared as written.
  }
}
