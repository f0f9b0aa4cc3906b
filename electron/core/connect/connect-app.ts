/**
 * Connecting another AI app to Airlock: its config file found, previewed, edited
 * in place (its own formatting and comments kept), backed up, and undone. One file
 * on purpose: preview, connect and undo share the config's reading and its backup;
 * editing JSON with comments is jsonc-edit.ts.
 */
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { lstat, mkdir, open, readdir, readFile, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { APP_LABELS } from '../../../shared/domain';
import { AirlockError } from '../errors';
import { AIRLOCK_ENTRY_NAME } from '../install/airlock-entries';
import { knownConfigLocations, type ImportEnvironment } from '../install/config-locations';
import { JsoncSyntaxError, parseJsonc } from '../install/jsonc';
import {
  applyEdits,
  formatMember,
  formatValue,
  indentAt,
  indentUnit,
  insertMemberEdits,
  lineEnding,
  scanJsonc,
  type JsoncNode,
  type TextEdit,
} from './jsonc-edit';

/** Apps `airlock connect` knows how to point at the gateway. */
export type ConnectApp = 'claude' | 'vscode' | 'cursor';

/** The name of the gateway's entry in an app's config (one home: install/ recognises it when importing). */
export { AIRLOCK_ENTRY_NAME };

/** How the app's config file is found (home, platform and environment are injectable for tests). */
export type ConnectEnvironment = Pick<ImportEnvironment, 'home' | 'platform' | 'env'>;

/** What the `airlock` entry runs. */
export interface GatewayCommand {
  /** Default `airlock`; an absolute path is safer for apps started without the user's PATH (macOS apps from the Dock). */
  command?: string;
  /** Default `['gateway', '--stdio']`. */
  args?: readonly string[];
}

/** One of the app's own server entries, exactly as the file has it. */
export interface AppServerEntry {
  name: string;
  config: unknown;
}

/** A config that cannot be changed, or nothing to undo; the file was not touched. */
export class ConnectError extends AirlockError {
  constructor(
    code: 'conflict' | 'not-found' | 'invalid-request',
    readonly path: string,
    message: string,
  ) {
    super(code, message);
    this.name = 'ConnectError';
  }
}

/** The key each app keeps its servers under. */
export function serversKey(app: ConnectApp): 'servers' | 'mcpServers' {
  return app === 'vscode' ? 'servers' : 'mcpServers';
}

/**
 * The user-level config file of `app`: Claude Desktop's
 * claude_desktop_config.json, VS Code's user mcp.json, Cursor's
 * ~/.cursor/mcp.json (per OS, see `knownConfigLocations`). Nothing is read.
 */
export function appConfigPath(app: ConnectApp, environment: ConnectEnvironment = {}): string {
  const location = knownConfigLocations(environment).find((l) => l.app === app && l.scope === 'user');
  if (!location) throw new ConnectError('not-found', '', `no known config location for ${app}`);
  return location.path;
}

/** The gateway entry for `app`: `{command, args}`, with `type: "stdio"` for VS Code. */
export function airlockEntry(app: ConnectApp, gateway: GatewayCommand = {}): Record<string, unknown> {
  const base = { command: gateway.command ?? 'airlock', args: [...(gateway.args ?? ['gateway', '--stdio'])] };
  return app === 'vscode' ? { type: 'stdio', ...base } : base;
}

/** What connecting would find, read without writing anything. */
export interface ConnectPreview {
  app: ConnectApp;
  path: string;
  exists: boolean;
  /** The file already has exactly the entry `connectApp` would write. */
  connected: boolean;
  /** The `airlock` entry the file has now, if any. */
  currentEntry?: unknown;
  /**
   * The app's other servers. To move them into Airlock, hand `path` to
   * `importConfigFile` (install/) so each goes through disclosure, then call
   * `connectApp` with `moveServers` for the ones the user took.
   */
  otherServers: AppServerEntry[];
}

/** Options for `connectApp`. */
export interface ConnectOptions extends ConnectEnvironment, GatewayCommand {
  /**
   * Remove the app's other server entries (all of them, or those named) so
   * they stop running unconfined there. Only after the user confirmed and
   * the servers were taken into Airlock.
   */
  moveServers?: boolean | readonly string[];
  /**
   * Instead of one `airlock` gateway entry: replace each named entry of the
   * app's own, in place and under its own name, with the command that serves
   * that one server through Airlock (`airlock run NAME`), so the app keeps a
   * toggle per server. Nothing else in the file changes; no gateway entry is
   * added. Only after the user confirmed and the servers were taken into Airlock.
   */
  perServerEntries?: Readonly<Record<string, GatewayCommand>>;
  /** The clock, for backup names. */
  now?: () => Date;
}

/** What `connectApp` did. */
export interface ConnectResult extends ConnectPreview {
  /** False when the file already said exactly this (nothing written, no backup). */
  changed: boolean;
  /** The copy of the file as it was (or the marker that there was none). */
  backupPath?: string;
  /**
   * `preserved`: every byte outside the inserted or replaced entry is as it
   * was; `servers-block-rewritten`: moving servers out rebuilt the servers
   * object — the remaining entries keep their text, comments between them
   * are gone; `new-file`: there was no file (or an empty one).
   */
  formatting: 'preserved' | 'servers-block-rewritten' | 'new-file';
  /** Entries taken out of the app's config. */
  removedServers: string[];
  /** Entries replaced in place by `airlock run` entries (per-server mode). */
  replacedServers?: string[];
}

/** Reads `app`'s config and reports what connecting would find. Refuses an invalid file. */
export async function previewConnect(app: ConnectApp, options: ConnectOptions = {}): Promise<ConnectPreview> {
  const path = await resolvedConfigPath(app, options);
  const text = await readIfExists(path);
  const state = text === undefined || text.trim() === '' ? undefined : analyse(app, path, text);
  const entry = airlockEntry(app, options);
  const current = state?.servers?.get(AIRLOCK_ENTRY_NAME);
  return {
    app,
    path,
    exists: text !== undefined,
    connected: current !== undefined && isDeepStrictEqual(current.parsed, entry),
    ...(current !== undefined ? { currentEntry: current.parsed } : {}),
    otherServers: state ? otherServers(state) : [],
  };
}

/**
 * Adds (or updates) the `airlock` entry in `app`'s config so the app starts
 * `airlock gateway --stdio`. Everything else in the file stays as it was,
 * byte for byte (comments and trailing commas of VS Code's JSONC too),
 * unless `moveServers` asks to take entries out. The original is copied
 * first to `<file>.airlock-backup-<time>` (mode 0600: app configs often
 * hold API keys), and the new text replaces the file atomically.
 *
 * Refuses, writing nothing, when the file is not valid JSON(C), is not an
 * object, keeps its servers in something other than an object, has the
 * same key twice where the change would go, or the app's folder does not
 * exist (the app is probably not installed).
 */
export async function connectApp(app: ConnectApp, options: ConnectOptions = {}): Promise<ConnectResult> {
  if (options.perServerEntries) return connectPerServer(app, options, options.perServerEntries);
  const path = await resolvedConfigPath(app, options);
  const text = await readIfExists(path);
  const entry = airlockEntry(app, options);
  const key = serversKey(app);

  let next: string;
  let formatting: ConnectResult['formatting'];
  let removed: string[] = [];
  let others: AppServerEntry[] = [];
  let current: unknown;
  if (text === undefined || text.trim() === '') {
    try {
      await stat(dirname(path));
    } catch {
      throw new ConnectError('not-found', path, `${dirname(path)} does not exist: is ${APP_LABELS[app]} installed? Nothing was written.`);
    }
    next = `${JSON.stringify({ [key]: { [AIRLOCK_ENTRY_NAME]: entry } }, null, 2)}\n`;
    formatting = 'new-file';
  } else {
    const state = analyse(app, path, text);
    others = otherServers(state);
    current = state.servers?.get(AIRLOCK_ENTRY_NAME)?.parsed;
    removed = serversToRemove(path, others, options.moveServers);
    ({ next, formatting } = edit(text, state, key, entry, removed));
    verify(path, text, next, key, entry, removed);
  }

  const changed = next !== text;
  const result: ConnectResult = {
    app,
    path,
    exists: text !== undefined,
    connected: true,
    ...(current !== undefined ? { currentEntry: current } : {}),
    otherServers: others,
    changed,
    formatting,
    removedServers: changed ? removed : [],
  };
  if (!changed) return result;
  result.backupPath = await backUp(path, text, options.now ?? (() => new Date()));
  await writeAtomically(path, next);
  return result;
}

/**
 * Replaces the named entries of `app`'s config in place with `airlock run`
 * entries (see `ConnectOptions.perServerEntries`), with the same backup,
 * verification and atomic write as `connectApp`.
 */
async function connectPerServer(app: ConnectApp, options: ConnectOptions, entries: Readonly<Record<string, GatewayCommand>>): Promise<ConnectResult> {
  const path = await resolvedConfigPath(app, options);
  const text = await readIfExists(path);
  if (text === undefined || text.trim() === '') throw new ConnectError('not-found', path, `${path} has no servers to replace; nothing was written`);
  const state = analyse(app, path, text);
  const key = serversKey(app);
  const names = Object.keys(entries);
  const eol = lineEnding(text);
  const unit = indentUnit(text);
  const edits: TextEdit[] = [];
  const replaced: Record<string, Record<string, unknown>> = {};
  for (const name of names) {
    const member = state.servers?.get(name);
    if (!member || name === AIRLOCK_ENTRY_NAME) throw new ConnectError('invalid-request', path, `${path} has no server “${name}” to replace; nothing was written`);
    const entry = airlockEntry(app, entries[name]);
    replaced[name] = entry;
    if (isDeepStrictEqual(member.parsed, entry)) continue;
    edits.push({ start: member.node.start, end: member.node.end, text: formatValue(entry, indentAt(text, member.keyStart) ?? state.serversIndent + unit, unit, eol) });
  }
  const next = applyEdits(text, edits);
  // SECURITY (invariant 7): the result must read back as the old config with exactly these entries replaced.
  const expected = parseJsonc(text) as Record<string, unknown>;
  expected[key] = { ...(expected[key] as Record<string, unknown>), ...replaced };
  let actual: unknown;
  try {
    actual = parseJsonc(next);
    if (isStrictJson(text)) JSON.parse(next.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ConnectError('conflict', path, `Airlock could not edit ${path} safely (${(error as Error).message}); nothing was written`);
  }
  if (!isDeepStrictEqual(actual, expected)) throw new ConnectError('conflict', path, `Airlock could not edit ${path} safely (the result did not read back as intended); nothing was written`);
  const changed = next !== text;
  const result: ConnectResult = { app, path, exists: true, connected: false, otherServers: otherServers(state), changed, formatting: 'preserved', removedServers: [], ...(changed ? { replacedServers: names } : {}) };
  if (!changed) return result;
  result.backupPath = await backUp(path, text, options.now ?? (() => new Date()));
  await writeAtomically(path, next);
  return result;
}

/** What `undoConnect` did. */
export interface UndoResult {
  app: ConnectApp;
  path: string;
  /** The backup that was put back (and then removed). */
  restoredFrom: string;
  /** The file as it was just before the undo, kept in case it held later changes. */
  savedCurrentAs?: string;
  /** The backup recorded that there was no file: the file was removed. */
  removedFile: boolean;
}

/**
 * Puts back the latest backup `connectApp` made of `app`'s config. The
 * file as it is now is kept beside it (`<file>.airlock-undone-<time>`)
 * when it differs, since the app or the user may have changed it since.
 * Undoing again goes one connect further back.
 */
export async function undoConnect(app: ConnectApp, options: ConnectOptions = {}): Promise<UndoResult> {
  const path = await resolvedConfigPath(app, options);
  const backups = await listBackups(path);
  const latest = backups.at(-1);
  if (!latest) throw new ConnectError('not-found', path, `there is no backup of ${path} made by “airlock connect”; nothing to undo`);
  const now = options.now ?? (() => new Date());
  const current = await readIfExists(path);
  const absent = latest.endsWith('.absent');
  const original = absent ? undefined : await readFile(latest, 'utf8');
  let savedCurrentAs: string | undefined;
  if (current !== undefined && current !== original) savedCurrentAs = await writeExclusive(`${path}.airlock-undone-${stamp(now())}`, current);
  if (absent) {
    if (current !== undefined) await unlink(path);
  } else {
    await writeAtomically(path, original!);
  }
  await unlink(latest);
  return { app, path, restoredFrom: latest, ...(savedCurrentAs ? { savedCurrentAs } : {}), removedFile: absent && current !== undefined };
}

// ---------------------------------------------------------------------------

interface ServerMember {
  parsed: unknown;
  node: JsoncNode;
  keyStart: number;
}

interface ConfigState {
  root: JsoncNode;
  /** The servers object's node, when the key is there. */
  serversNode?: JsoncNode;
  /** Indentation of the line the servers key is on. */
  serversIndent: string;
  servers?: Map<string, ServerMember>;
  /** Entry names in file order. */
  order: string[];
}

function analyse(app: ConnectApp, path: string, text: string): ConfigState {
  let root: JsoncNode;
  try {
    root = scanJsonc(text);
  } catch (error) {
    if (error instanceof JsoncSyntaxError) throw new ConnectError('conflict', path, `${path} is not valid JSON (${error.message}); fix or remove it first. Nothing was written.`);
    throw error;
  }
  if (root.kind !== 'object') throw new ConnectError('conflict', path, `${path} must hold a JSON object; nothing was written`);
  const key = serversKey(app);
  const found = root.members.filter((m) => m.key === key);
  if (found.length > 1) throw new ConnectError('conflict', path, `${path} has “${key}” twice; keep one and try again. Nothing was written.`);
  const state: ConfigState = { root, serversIndent: '', order: [] };
  const member = found[0];
  if (!member) return state;
  if (member.value.kind !== 'object') {
    throw new ConnectError('conflict', path, `“${key}” in ${path} must be an object of named servers; nothing was written`);
  }
  state.serversNode = member.value;
  state.serversIndent = indentAt(text, member.keyStart) ?? '';
  state.servers = new Map();
  for (const server of member.value.members) {
    if (state.servers.has(server.key)) throw new ConnectError('conflict', path, `${path} lists the server “${server.key}” twice; keep one and try again. Nothing was written.`);
    state.servers.set(server.key, { parsed: parseSlice(text, server.value), node: server.value, keyStart: server.keyStart });
    state.order.push(server.key);
  }
  return state;
}

function parseSlice(text: string, node: JsoncNode): unknown {
  return parseJsonc(text.slice(node.start, node.end));
}

function otherServers(state: ConfigState): AppServerEntry[] {
  if (!state.servers) return [];
  return state.order.filter((name) => name !== AIRLOCK_ENTRY_NAME).map((name) => ({ name, config: state.servers!.get(name)!.parsed }));
}

function serversToRemove(path: string, others: AppServerEntry[], move: ConnectOptions['moveServers']): string[] {
  if (!move) return [];
  if (move === true) return others.map((o) => o.name);
  for (const name of move) {
    if (!others.some((o) => o.name === name)) throw new ConnectError('invalid-request', path, `${path} has no server “${name}” to move; nothing was written`);
  }
  return others.filter((o) => move.includes(o.name)).map((o) => o.name);
}

function edit(
  text: string,
  state: ConfigState,
  key: string,
  entry: Record<string, unknown>,
  removed: readonly string[],
): { next: string; formatting: ConnectResult['formatting'] } {
  const eol = lineEnding(text);
  const unit = indentUnit(text);
  const serversNode = state.serversNode;
  if (!serversNode || !state.servers) {
    const edits = insertMemberEdits(text, state.root, key, { [AIRLOCK_ENTRY_NAME]: entry }, '');
    return { next: applyEdits(text, edits), formatting: 'preserved' };
  }
  if (removed.length > 0) {
    // Rebuild the servers object from the kept entries' own text, then the gateway's entry.
    const indent = state.serversIndent + unit;
    const kept = state.order.filter((name) => name !== AIRLOCK_ENTRY_NAME && !removed.includes(name));
    const parts = kept.map((name) => {
      const member = state.servers!.get(name)!;
      return `${eol}${indent}${text.slice(member.keyStart, member.node.end)}`;
    });
    parts.push(`${eol}${indent}${formatMember(AIRLOCK_ENTRY_NAME, entry, indent, unit, eol)}`);
    const rebuilt = `{${parts.join(',')}${eol}${state.serversIndent}}`;
    return { next: applyEdits(text, [{ start: serversNode.start, end: serversNode.end, text: rebuilt }]), formatting: 'servers-block-rewritten' };
  }
  const existing = state.servers.get(AIRLOCK_ENTRY_NAME);
  if (existing) {
    if (isDeepStrictEqual(existing.parsed, entry)) return { next: text, formatting: 'preserved' };
    const indent = indentAt(text, existing.keyStart) ?? state.serversIndent + unit;
    const edits: TextEdit[] = [{ start: existing.node.start, end: existing.node.end, text: formatValue(entry, indent, unit, eol) }];
    return { next: applyEdits(text, edits), formatting: 'preserved' };
  }
  return { next: applyEdits(text, insertMemberEdits(text, serversNode, AIRLOCK_ENTRY_NAME, entry, state.serversIndent)), formatting: 'preserved' };
}

/**
 * SECURITY (invariant 7): the new text must read back as exactly the old
 * config plus the gateway's entry, minus the moved servers — and stay
 * strict JSON where it was (Claude Desktop and Cursor do not read JSONC).
 * Otherwise nothing is written.
 */
function verify(path: string, before: string, after: string, key: string, entry: Record<string, unknown>, removed: readonly string[]): void {
  const expected = parseJsonc(before) as Record<string, unknown>;
  const servers = { ...((expected[key] as Record<string, unknown> | undefined) ?? {}) };
  for (const name of removed) delete servers[name];
  servers[AIRLOCK_ENTRY_NAME] = entry;
  expected[key] = servers;
  let actual: unknown;
  try {
    actual = parseJsonc(after);
    if (isStrictJson(before)) JSON.parse(after.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ConnectError('conflict', path, `Airlock could not edit ${path} safely (${(error as Error).message}); nothing was written`);
  }
  if (!isDeepStrictEqual(actual, expected)) {
    throw new ConnectError('conflict', path, `Airlock could not edit ${path} safely (the result did not read back as intended); nothing was written`);
  }
}

function isStrictJson(text: string): boolean {
  try {
    JSON.parse(text.replace(/^\uFEFF/, ''));
    return true;
  } catch {
    return false;
  }
}

async function resolvedConfigPath(app: ConnectApp, environment: ConnectEnvironment): Promise<string> {
  const path = appConfigPath(app, environment);
  try {
    // A config kept as a link (dotfiles) is edited where it really lives; the link stays.
    if ((await lstat(path)).isSymbolicLink()) return await realpath(path);
  } catch {
    // absent: created where the app looks
  }
  return path;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'EISDIR') throw new ConnectError('conflict', path, `${path} is a folder, not a config file; nothing was written`);
    throw error;
  }
}

function stamp(date: Date): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

const BACKUP = /\.airlock-backup-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)(?:-(\d+))?(\.absent)?$/;

/** Copies the file as it was (or marks that there was none) under a name no other backup has. */
async function backUp(path: string, text: string | undefined, now: () => Date): Promise<string> {
  const base = `${path}.airlock-backup-${stamp(now())}`;
  return writeExclusive(base, text ?? '', text === undefined ? '.absent' : '');
}

/** Writes a new file 0600 (never overwriting one): `base`, else `base-1`, `base-2`… (then `suffix`). */
async function writeExclusive(base: string, content: string, suffix = ''): Promise<string> {
  for (let n = 0; n < 100; n += 1) {
    const candidate = `${base}${n === 0 ? '' : `-${n}`}${suffix}`;
    try {
      // SECURITY: app configs hold API keys more often than not; the copies are private to the user.
      const handle = await open(candidate, 'wx', 0o600);
      try {
        await handle.writeFile(content, 'utf8');
      } finally {
        await handle.close();
      }
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new ConnectError('conflict', base, `too many backups named ${basename(base)}; remove some`);
}

/** Backups of `path` by `connectApp`, oldest first. */
async function listBackups(path: string): Promise<string[]> {
  const dir = dirname(path);
  const prefix = `${basename(path)}.airlock-backup-`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(prefix) && BACKUP.test(name))
    .map((name) => {
      const match = BACKUP.exec(name)!;
      return { name, at: match[1]!, n: Number(match[2] ?? 0) };
    })
    .sort((a, b) => (a.at === b.at ? a.n - b.n : a.at < b.at ? -1 : 1))
    .map((b) => join(dir, b.name));
}

/** Replaces `path` with `content` in one step, keeping the file's mode (0600 for a new file). */
async function writeAtomically(path: string, content: string): Promise<void> {
  let mode = 0o600;
  try {
    mode = (await stat(path)).mode & 0o777;
  } catch {
    await mkdir(dirname(path), { recursive: true });
  }
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined); // The temporary file may not exist; the error that matters is thrown below.
    throw error;
  }
}
