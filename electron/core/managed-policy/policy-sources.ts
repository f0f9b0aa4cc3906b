/**
 * Where an organisation's policy is read from, one narrow interface per OS:
 *
 * - Linux: `/etc/airlock/managed-policy.json`.
 * - macOS: the managed preferences of the app's bundle id, as a
 *   configuration profile installs them (`/Library/Managed Preferences/
 *   dev.airlock.app.plist`, and the same under the person's own folder
 *   there), then `/Library/Application Support/Airlock/managed-policy.json`.
 * - Windows: `HKLM\SOFTWARE\Policies\Airlock` (through reg.exe), then
 *   `managed-policy.json` in an `Airlock` folder of ProgramData (its place
 *   read from the registry, not from the environment).
 *
 * SECURITY: the locations are fixed. A test gives its own source through an
 * explicit option of the host; no environment variable or setting a person
 * could change moves them. A file that someone other than an administrator
 * could change — owned by another user, writable by a group that is not an
 * administrators' group or by anyone, or inside a folder that is — is not a
 * policy: it is reported as ignored (loudly), never read.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join, win32 } from 'node:path';
import { parsePlist } from './plist';
import { parsePolicyJson, PolicySyntaxError, type PositionedJson } from './policy-json';
import { parseWindowsAcls, registryPolicy, WINDOWS_ACL_SCRIPT, WINDOWS_POLICY_KEY, windowsAclProblem } from './windows-formats';

/** What one location held when it was read. */
export type PolicyDocument =
  | { location: string; status: 'absent' }
  /** Present, but someone other than an administrator can change it: not a policy. */
  | { location: string; status: 'ignored'; why: string }
  /** Present, and it cannot be read or parsed: `line` when the text says where. */
  | { location: string; status: 'unreadable'; problem: string; line?: number }
  | { location: string; status: 'read'; value: unknown; positionOf?: PositionedJson['positionOf']; sha256?: string };

/** One OS's policy locations, highest precedence first (for each key, the first document that sets it wins). */
export interface PolicySource {
  /** The locations, in words ("/etc/airlock/managed-policy.json"), highest precedence first. */
  readonly locations: readonly string[];
  /** Reads every location now (synchronously: start-up reads the policy before any server starts). */
  read(): PolicyDocument[];
}

/** The app's bundle id (electron-builder.yml `appId`): the configuration profile's payload type. */
export const BUNDLE_ID = 'dev.airlock.app';

/** The policy file's place on each OS (Windows: under ProgramData). */
export const POLICY_PATHS = {
  linux: '/etc/airlock/managed-policy.json',
  darwin: '/Library/Application Support/Airlock/managed-policy.json',
  darwinManagedPreferences: `/Library/Managed Preferences/${BUNDLE_ID}.plist`,
} as const;

/** A policy file larger than this is refused (a policy is a page of settings). */
const MAX_POLICY_BYTES = 1024 * 1024;

/** The source for this OS. */
export function defaultPolicySource(platform: NodeJS.Platform = process.platform): PolicySource {
  if (platform === 'darwin') return darwinPolicySource();
  if (platform === 'win32') return windowsPolicySource();
  return linuxPolicySource();
}

/** Linux: one JSON file (`path` only for tests, given explicitly). */
export function linuxPolicySource(options: { path?: string; adminGroups?: ReadonlySet<number> } = {}): PolicySource {
  const path = options.path ?? POLICY_PATHS.linux;
  const groups = options.adminGroups ?? new Set([0]);
  return { locations: [path], read: () => [readPolicyFile(path, groups)] };
}

/** macOS: the configuration profile's managed preferences (the person's own, then the computer's), then the JSON file. */
export function darwinPolicySource(options: { managedPreferencesDir?: string; file?: string; user?: string } = {}): PolicySource {
  const dir = options.managedPreferencesDir ?? '/Library/Managed Preferences';
  const user = options.user ?? safeUserName();
  const plists = [...(user ? [join(dir, user, `${BUNDLE_ID}.plist`)] : []), join(dir, `${BUNDLE_ID}.plist`)];
  const file = options.file ?? POLICY_PATHS.darwin;
  // root (wheel) and admin own the system's folders on macOS.
  const groups = new Set([0, 80]);
  return {
    locations: [...plists, file],
    read: () => [...plists.map((plist) => readManagedPreferences(plist, groups)), readPolicyFile(file, groups)],
  };
}

/** Windows: the registry key, then the JSON file in ProgramData. `run` is reg.exe and PowerShell (tests pass recorded output). */
export function windowsPolicySource(options: { run?: WindowsRunner; programData?: string; file?: string } = {}): PolicySource {
  const run = options.run ?? runWindowsTool;
  const programData = options.file ? undefined : (options.programData ?? programDataFromRegistry(run));
  const file = options.file ?? (programData ? win32.join(programData, 'Airlock', 'managed-policy.json') : undefined);
  return {
    locations: [WINDOWS_POLICY_KEY, file ?? '%ProgramData%\\Airlock\\managed-policy.json'],
    read: () => [readRegistryPolicy(run), file ? readWindowsPolicyFile(file, run) : { location: '%ProgramData%\\Airlock\\managed-policy.json', status: 'unreadable', problem: 'Airlock could not find ProgramData in the registry' }],
  };
}

// ── Files (Linux, macOS) ────────────────────────────────────────────────

/**
 * Reads one JSON policy file: absent, ignored (someone other than an
 * administrator can change it), unreadable, or read (with positions).
 */
export function readPolicyFile(path: string, adminGroups: ReadonlySet<number>): PolicyDocument {
  const opened = openAdminOnly(path, adminGroups);
  if (opened.status !== 'open') return opened;
  const text = opened.bytes.toString('utf8');
  try {
    const parsed = parsePolicyJson(text);
    return { location: path, status: 'read', value: parsed.value, positionOf: parsed.positionOf, sha256: opened.sha256 };
  } catch (error) {
    if (error instanceof PolicySyntaxError) return { location: path, status: 'unreadable', problem: `it is not valid JSON: ${error.message.replace(/^line \d+, column \d+: /, '')}`, line: error.position.line };
    return { location: path, status: 'unreadable', problem: messageOf(error) };
  }
}

function readManagedPreferences(path: string, adminGroups: ReadonlySet<number>): PolicyDocument {
  const opened = openAdminOnly(path, adminGroups);
  if (opened.status !== 'open') return opened;
  try {
    return { location: path, status: 'read', value: parsePlist(opened.bytes), sha256: opened.sha256 };
  } catch (error) {
    return { location: path, status: 'unreadable', problem: `it is not a property list Airlock can read: ${messageOf(error)}` };
  }
}

type Opened = { status: 'open'; bytes: Buffer; sha256: string } | Exclude<PolicyDocument, { status: 'read' }>;

/**
 * Opens a file only an administrator can change, and reads it through the
 * same descriptor whose owner and mode were checked (no swap in between).
 */
function openAdminOnly(path: string, adminGroups: ReadonlySet<number>): Opened {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { location: path, status: 'absent' };
    return { location: path, status: 'unreadable', problem: `it cannot be opened (${code ?? messageOf(error)})` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { location: path, status: 'unreadable', problem: 'it is not a plain file' };
    const problem = writableByOthers(stats, path, adminGroups) ?? foldersProblem(path, adminGroups);
    if (problem) return { location: path, status: 'ignored', why: problem };
    if (stats.size > MAX_POLICY_BYTES) return { location: path, status: 'unreadable', problem: `it is larger than ${MAX_POLICY_BYTES} bytes` };
    const bytes = Buffer.alloc(stats.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    const content = bytes.subarray(0, read);
    return { status: 'open', bytes: content, sha256: sha256(content) };
  } catch (error) {
    return { location: path, status: 'unreadable', problem: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? messageOf(error)})` };
  } finally {
    closeSync(fd);
  }
}

/** Why someone other than an administrator could change this file or folder (owner, group, everyone); undefined when nobody can. */
export function writableByOthers(stats: { uid: number; gid: number; mode: number; isDirectory(): boolean }, path: string, adminGroups: ReadonlySet<number>): string | undefined {
  const sticky = stats.isDirectory() && (stats.mode & 0o1000) !== 0;
  if (stats.uid !== 0) return `${path} belongs to user ${stats.uid}, not to root: that user can change it`;
  // SECURITY: a sticky folder (/tmp) lets nobody replace an entry they do not own; its root-owned entries are checked in turn.
  if ((stats.mode & 0o002) !== 0 && !sticky) return `anyone can change ${path}`;
  if ((stats.mode & 0o020) !== 0 && !adminGroups.has(stats.gid) && !sticky) return `the members of group ${stats.gid} can change ${path}`;
  return undefined;
}

/** Every folder above the file (as named, and as its links resolve) must be one only an administrator can change. */
function foldersProblem(path: string, adminGroups: ReadonlySet<number>): string | undefined {
  const folders = new Set<string>();
  const addParents = (start: string) => {
    for (let dir = dirname(start); ; dir = dirname(dir)) {
      folders.add(dir);
      if (dirname(dir) === dir) break;
    }
  };
  addParents(path);
  try {
    addParents(realpathSync(path));
  } catch (error) {
    return `where ${path} leads cannot be found (${(error as NodeJS.ErrnoException).code ?? messageOf(error)})`;
  }
  for (const folder of folders) {
    const problem = writableByOthers(statSync(folder), folder, adminGroups);
    if (problem) return problem;
  }
  return undefined;
}

// ── Windows ─────────────────────────────────────────────────────────────

/** Runs a Windows tool (reg.exe, PowerShell) and returns its exit code and output. */
export type WindowsRunner = (tool: 'reg' | 'powershell', args: readonly string[]) => { status: number | null; stdout: string; stderr: string };

function runWindowsTool(tool: 'reg' | 'powershell', args: readonly string[]) {
  // The system's own folder (set by Windows for every process); PATH is not consulted.
  const system = win32.join(process.env.SystemRoot ?? 'C:\\Windows', 'System32');
  const program = tool === 'reg' ? win32.join(system, 'reg.exe') : win32.join(system, 'WindowsPowerShell', 'v1.0', 'powershell.exe');
  const result = spawnSync(program, [...args], { encoding: 'utf8', timeout: 10_000, windowsHide: true });
  return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? (result.error ? messageOf(result.error) : '') };
}

function readRegistryPolicy(run: WindowsRunner): PolicyDocument {
  const result = run('reg', ['query', WINDOWS_POLICY_KEY, '/s']);
  // reg.exe exits 1 when the key does not exist.
  if (result.status === 1 && !/HKEY_/i.test(result.stdout)) return { location: WINDOWS_POLICY_KEY, status: 'absent' };
  if (result.status !== 0) return { location: WINDOWS_POLICY_KEY, status: 'unreadable', problem: `reg.exe could not read it (${result.stderr.trim() || `exit ${result.status}`})` };
  try {
    const value = registryPolicy(result.stdout);
    // SECURITY: HKLM\SOFTWARE\Policies is writable only by administrators (Windows' own ACL on that key).
    return value === null ? { location: WINDOWS_POLICY_KEY, status: 'absent' } : { location: WINDOWS_POLICY_KEY, status: 'read', value, sha256: sha256(Buffer.from(result.stdout)) };
  } catch (error) {
    return { location: WINDOWS_POLICY_KEY, status: 'unreadable', problem: messageOf(error) };
  }
}

function readWindowsPolicyFile(path: string, run: WindowsRunner): PolicyDocument {
  let bytes: Buffer;
  try {
    const fd = openSync(path, 'r');
    try {
      const stats = fstatSync(fd);
      if (stats.size > MAX_POLICY_BYTES) return { location: path, status: 'unreadable', problem: `it is larger than ${MAX_POLICY_BYTES} bytes` };
      bytes = Buffer.alloc(stats.size);
      readSync(fd, bytes, 0, bytes.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { location: path, status: 'absent' };
    return { location: path, status: 'unreadable', problem: `it cannot be read (${code ?? messageOf(error)})` };
  }
  // The file and its two folders (Airlock, ProgramData): owned and changeable only by administrators.
  const parent = (p: string) => (p.includes('\\') ? win32.dirname(p) : dirname(p));
  const checked = [path, parent(path), parent(parent(path))];
  const acl = run('powershell', ['-NoProfile', '-NonInteractive', '-Command', WINDOWS_ACL_SCRIPT, ...checked]);
  if (acl.status !== 0) return { location: path, status: 'unreadable', problem: `its permissions could not be checked (${acl.stderr.trim() || `exit ${acl.status}`})` };
  let problem: string | undefined;
  try {
    problem = windowsAclProblem(parseWindowsAcls(acl.stdout).filter((entry) => entry.path !== checked[2]));
  } catch (error) {
    return { location: path, status: 'unreadable', problem: `its permissions could not be checked (${messageOf(error)})` };
  }
  if (problem) return { location: path, status: 'ignored', why: problem };
  try {
    const parsed = parsePolicyJson(bytes.toString('utf8'));
    return { location: path, status: 'read', value: parsed.value, positionOf: parsed.positionOf, sha256: sha256(bytes) };
  } catch (error) {
    if (error instanceof PolicySyntaxError) return { location: path, status: 'unreadable', problem: `it is not valid JSON: ${error.message.replace(/^line \d+, column \d+: /, '')}`, line: error.position.line };
    return { location: path, status: 'unreadable', problem: messageOf(error) };
  }
}

/** ProgramData's place, from the registry (`%SystemDrive%` read from the system root there too). */
function programDataFromRegistry(run: WindowsRunner): string | undefined {
  const value = (key: string, name: string) => {
    const result = run('reg', ['query', key, '/v', name]);
    if (result.status !== 0) return undefined;
    return /REG_(?:EXPAND_)?SZ {4}(.*)$/m.exec(result.stdout)?.[1]?.trim();
  };
  const programData = value('HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\ProfileList', 'ProgramData');
  if (!programData) return undefined;
  const systemRoot = value('HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion', 'SystemRoot');
  const drive = systemRoot?.slice(0, 2) ?? 'C:';
  return programData.replace(/%SystemDrive%/gi, drive);
}

// ── Small helpers ───────────────────────────────────────────────────────

function safeUserName(): string | undefined {
  try {
    const name = userInfo().username;
    return /^[A-Za-z0-9._-]+$/.test(name) ? name : undefined;
  } catch {
    // No user record (a container without one): only the computer's managed preferences apply.
    return undefined;
  }
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

