/**
 * The two Windows formats the policy reader meets, parsed as data (so they
 * are tested on any OS):
 *
 * - the output of `reg.exe query "HKLM\SOFTWARE\Policies\Airlock" /s`: a
 *   key line (`HKEY_LOCAL_MACHINE\…`), then one line per value, indented
 *   four spaces, `name    TYPE    data`. Values become policy keys: a
 *   REG_DWORD is a number (0/1 for the yes/no keys), a REG_SZ text (JSON
 *   text for the keys that hold lists or objects), a REG_MULTI_SZ a list
 *   (its items separated by `\0` in reg.exe's output). A sub-key is an
 *   object of its values; a sub-key of a list key whose values are named
 *   1, 2, 3 … is that list, in order (Chrome's convention), each item JSON.
 * - an ACL, as the PowerShell script in `WINDOWS_ACL_SCRIPT` prints it: the
 *   owner's SID and each rule (SID, rights mask, allow or deny, inherit-only).
 *   Only SYSTEM, Administrators and TrustedInstaller may own or write a
 *   policy file and its folder.
 */
import { BOOLEAN_KEYS, STRUCTURED_KEYS } from './policy-schema';

/** Where the machine's policy lives in the registry. */
export const WINDOWS_POLICY_KEY = 'HKLM\\SOFTWARE\\Policies\\Airlock';

/** A registry value that cannot become a policy key, with where. */
export class RegistryPolicyError extends Error {
  override name = 'RegistryPolicyError';
}

interface RegValue {
  name: string;
  type: string;
  data: string;
}

interface RegKey {
  path: string;
  values: RegValue[];
}

/** Splits `reg.exe query … /s` output into keys and their values. */
export function parseRegQuery(output: string): RegKey[] {
  const keys: RegKey[] = [];
  for (const raw of output.split(/\r?\n/)) {
    if (raw.trim() === '') continue;
    if (/^HKEY_/i.test(raw)) {
      keys.push({ path: raw.trim(), values: [] });
      continue;
    }
    const match = /^ {4}(.*?) {4}(REG_[A-Z_]+)(?: {4}(.*))?$/.exec(raw);
    if (match && keys.length > 0) keys.at(-1)!.values.push({ name: match[1] === '(Default)' ? '' : match[1]!, type: match[2]!, data: match[3] ?? '' });
  }
  return keys;
}

/** The policy object the registry holds under `root` (null: no such key). */
export function registryPolicy(output: string, root = 'HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Airlock'): Record<string, unknown> | null {
  const keys = parseRegQuery(output);
  const lower = root.toLowerCase();
  const top = keys.find((key) => key.path.toLowerCase() === lower);
  if (!top) return null;
  const build = (key: RegKey, path: string[]): Record<string, unknown> | unknown[] => {
    const children = keys.filter((other) => {
      const parent = other.path.slice(0, other.path.lastIndexOf('\\'));
      return parent.toLowerCase() === key.path.toLowerCase();
    });
    const listKey = path.length === 1 && (path[0] === 'allowedServers' || path[0] === 'deniedServers');
    if (listKey && children.length === 0 && key.values.every((value) => /^\d+$/.test(value.name))) {
      return [...key.values]
        .sort((a, b) => Number(a.name) - Number(b.name))
        .map((value) => convert(value, [...path, value.name], 'json'));
    }
    const out = Object.create(null) as Record<string, unknown>;
    for (const value of key.values) {
      if (value.name === '') continue;
      const here = [...path, value.name];
      const structured = path.length === 0 && (STRUCTURED_KEYS as readonly string[]).includes(value.name);
      set(out, value.name, convert(value, here, structured ? 'json' : 'plain'));
    }
    for (const child of children) {
      const name = child.path.slice(child.path.lastIndexOf('\\') + 1);
      set(out, name, build(child, [...path, name]));
    }
    return out;
  };
  const convert = (value: RegValue, path: string[], as: 'json' | 'plain'): unknown => {
    const where = `${root}\\${path.slice(0, -1).join('\\')}${path.length > 1 ? '\\' : ''}, value ${path.at(-1)}`;
    switch (value.type) {
      case 'REG_DWORD':
      case 'REG_QWORD': {
        const n = Number.parseInt(value.data, 16);
        if (!Number.isSafeInteger(n)) throw new RegistryPolicyError(`${where}: ${value.data} is not a number`);
        if (path.length === 1 && (BOOLEAN_KEYS as readonly string[]).includes(path[0]!)) {
          if (n !== 0 && n !== 1) throw new RegistryPolicyError(`${where}: a yes/no setting is 0 or 1 (not ${n})`);
          return n === 1;
        }
        return n;
      }
      case 'REG_SZ':
      case 'REG_EXPAND_SZ':
        if (as === 'json') {
          try {
            return JSON.parse(value.data) as unknown;
          } catch (error) {
            throw new RegistryPolicyError(`${where}: this value holds JSON text, and it does not parse (${error instanceof Error ? error.message : String(error)})`);
          }
        }
        return value.data;
      case 'REG_MULTI_SZ': {
        const items = value.data === '' ? [] : value.data.split('\\0');
        if (as === 'json') {
          return items.map((item, k) => {
            try {
              return JSON.parse(item) as unknown;
            } catch {
              throw new RegistryPolicyError(`${where}: item ${k + 1} holds JSON text, and it does not parse`);
            }
          });
        }
        return items;
      }
      default:
        throw new RegistryPolicyError(`${where}: a ${value.type} value cannot be a policy setting (use REG_DWORD, REG_SZ or REG_MULTI_SZ)`);
    }
  };
  return build(top, []) as Record<string, unknown>;
}

function set(out: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
}

// ── ACLs ────────────────────────────────────────────────────────────────

/**
 * Prints, as JSON, the owner and access rules (by SID) of each path given
 * as an argument. Run with `powershell.exe -NoProfile -NonInteractive -Command`.
 */
export const WINDOWS_ACL_SCRIPT = [
  "$ErrorActionPreference = 'Stop'",
  '$sid = [System.Security.Principal.SecurityIdentifier]',
  '$out = @(foreach ($p in $args) { $acl = Get-Acl -LiteralPath $p; [pscustomobject]@{ path = $p; owner = $acl.GetOwner($sid).Value; rules = @($acl.GetAccessRules($true, $true, $sid) | ForEach-Object { [pscustomobject]@{ sid = $_.IdentityReference.Value; rights = [int64]$_.FileSystemRights; type = [string]$_.AccessControlType; inheritOnly = [bool]([int]$_.PropagationFlags -band 2) } }) } })',
  'ConvertTo-Json -InputObject $out -Depth 4 -Compress',
].join('; ');

/** One path's ACL as the script prints it. */
export interface WindowsAcl {
  path: string;
  owner: string;
  rules: Array<{ sid: string; rights: number; type: string; inheritOnly?: boolean }>;
}

/** SYSTEM, Administrators, TrustedInstaller: the only principals that may own or change a policy. */
export const WINDOWS_ADMIN_SIDS: ReadonlySet<string> = new Set(['S-1-5-18', 'S-1-5-32-544', 'S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464']);

/** Rights that change a file or a folder's entries: write and append data (add file, add folder), attributes, delete (and delete child), permissions, ownership, generic write/all. */
export const WINDOWS_WRITE_RIGHTS = 0x2 | 0x4 | 0x10 | 0x40 | 0x100 | 0x10000 | 0x40000 | 0x80000 | 0x10000000 | 0x40000000;

/** Why these ACLs (a file and its folders) let someone other than an administrator change the policy; undefined when they do not. */
export function windowsAclProblem(acls: readonly WindowsAcl[]): string | undefined {
  for (const acl of acls) {
    if (!WINDOWS_ADMIN_SIDS.has(acl.owner)) return `${acl.path} is owned by ${acl.owner}, not by an administrator`;
    for (const rule of acl.rules ?? []) {
      if (rule.type !== 'Allow' || rule.inheritOnly === true) continue;
      if ((Number(rule.rights) & WINDOWS_WRITE_RIGHTS) !== 0 && !WINDOWS_ADMIN_SIDS.has(rule.sid)) return `${rule.sid} may change ${acl.path}`;
    }
  }
  return undefined;
}

/** Parses the script's output (one object, or a list of them). */
export function parseWindowsAcls(output: string): WindowsAcl[] {
  const parsed = JSON.parse(output) as unknown;
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.map((item) => {
    const acl = item as Partial<WindowsAcl>;
    if (typeof acl.path !== 'string' || typeof acl.owner !== 'string') throw new Error('the ACL listing has no path or owner');
    return { path: acl.path, owner: acl.owner, rules: Array.isArray(acl.rules) ? acl.rules : acl.rules ? [acl.rules] : [] };
  });
}
