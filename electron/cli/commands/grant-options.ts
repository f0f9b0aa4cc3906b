/**
 * The grants a command line gives a server (`--read`, `--write`, `--domain`,
 * `--persistent-data`, `--env`, `--secret`), checked before anything is
 * downloaded or saved, applied to a profile, and said back in words.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { SandboxProfile } from '../../../shared/domain';
import type { Disclosure } from '../../../shared/views';
import { domainProblem, parseEnvAssignments, pathProblem } from '../../core/install';
import { isAtOrUnder } from '../../core/sandbox';
import { CliExit, EXIT, type CliIo } from '../output';

export const collect = (value: string, previous: string[] = []) => [...previous, value];

export interface GrantOptions {
  read?: string[];
  write?: string[];
  domain?: string[];
  persistentData?: boolean;
  secret?: string[];
  env?: string[];
  /** Paths inside write grants where it may change files host tools trust (`grant`/`revoke` only). */
  writeTrusted?: string[];
}

export function withGrantOptions(command: Command, verb: 'grant' | 'revoke' = 'grant'): Command {
  return command
    .option('--read <path>', 'let it read a folder or file (repeatable)', collect)
    .option('--write <path>', 'let it write a folder (repeatable; it must exist)', collect)
    .option('--domain <domain>', 'let it reach a domain, e.g. api.example.com or *.example.com (repeatable)', collect)
    .option('--persistent-data', 'give it a data folder of its own that outlives it')
    .option(
      '--env <KEY=VALUE>',
      verb === 'grant' ? 'a plain setting passed as an environment variable, e.g. MEMORY_FILE_PATH=/path (repeatable; secrets go with --secret)' : 'take a plain setting away: --env KEY (repeatable)',
      collect,
    );
}

/**
 * Checks what can be checked before anything is downloaded or saved: the
 * grants' paths exist and their domains parse. Exit 2 with every problem,
 * one plain sentence each.
 */
export function checkGrants(options: GrantOptions): void {
  const problems = [
    ...(options.write ?? []).map((path) => pathProblem('write', resolve(path))),
    ...(options.read ?? []).map((path) => pathProblem('read', resolve(path))),
    ...(options.domain ?? []).map((domain) => domainProblem(domain)),
  ].filter((problem): problem is string => problem !== undefined);
  if (problems.length) throw new CliExit(EXIT.usage, problems.join('\n'));
}

/** `--env KEY=VALUE` values, checked (names, no secrets); exit 2 on a problem. */
export function envOption(values: string[] | undefined): Record<string, string> {
  const { env, problems } = parseEnvAssignments(values ?? []);
  if (problems.length) throw new CliExit(EXIT.usage, problems.join('\n'));
  return env;
}

export function applyGrants(profile: Omit<SandboxProfile, 'unsandboxed'>, options: GrantOptions, remove = false): Omit<SandboxProfile, 'unsandboxed'> {
  const edit = (list: string[], values: string[] | undefined, absolute: boolean) => {
    const given = (values ?? []).map((value) => (absolute ? resolve(value) : value.trim().toLowerCase()));
    return remove ? list.filter((item) => !given.includes(item)) : [...new Set([...list, ...given])];
  };
  const write = edit(profile.filesystem.write, options.write, true);
  // A trusted-files exception goes with the write grant it lies in (it must not come back with a later grant).
  const writeTrusted = edit(profile.filesystem.writeTrusted ?? [], options.writeTrusted, true).filter(
    (path) => !remove || write.some((grant) => isAtOrUnder(path, grant)),
  );
  return {
    ...profile,
    filesystem: {
      read: edit(profile.filesystem.read, options.read, true),
      write,
      persistentData: options.persistentData ? !remove : profile.filesystem.persistentData,
      ...(writeTrusted.length ? { writeTrusted } : {}),
    },
    network: { allowedDomains: edit(profile.network.allowedDomains, options.domain, false) },
  };
}

export function parseConfig(values: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values ?? []) {
    const at = value.indexOf('=');
    if (at < 1) throw new CliExit(EXIT.usage, `--config takes KEY=VALUE, got “${value}”.`);
    out[value.slice(0, at)] = value.slice(at + 1);
  }
  return out;
}

/** Secret values come from the environment variable of the same name, never from the command line (it is visible to other processes). */
export function secretsFromEnv(io: CliIo, names: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names ?? []) {
    const value = io.env[name];
    if (value === undefined) throw new CliExit(EXIT.usage, `--secret ${name}: set the environment variable ${name} to the secret's value for this command.`);
    out[name] = value;
  }
  return out;
}

export function granted(profile: Omit<SandboxProfile, 'unsandboxed'>, proposal: Disclosure['proposals'][number]): boolean {
  if (proposal.kind === 'domain') return profile.network.allowedDomains.includes(proposal.value);
  return profile.filesystem[proposal.kind].includes(proposal.value) || (proposal.kind === 'read' && profile.filesystem.write.includes(proposal.value));
}

export function grantWords(profile: Omit<SandboxProfile, 'unsandboxed'>): string {
  const f = profile.filesystem;
  return [
    // What a grant adds to its reads; without one it sees none of the home folder (a folder it may write, it may read too).
    ...(f.read.length ? [`read ${f.read.join(', ')}`] : f.write.length ? [] : ['reads none of your home folder']),
    `write ${[...f.write, ...(f.persistentData ? ['its own data folder'] : [])].join(', ') || 'nowhere that lasts'}`,
    `network ${profile.network.allowedDomains.join(', ') || 'none'}`,
    ...(profile.secrets.length ? [`secrets ${profile.secrets.join(', ')}`] : []),
  ].join(' · ');
}
