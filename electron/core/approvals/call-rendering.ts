/**
 * The one rendering of a call a person decides on — the window, the terminal
 * and the OS notification all start from `renderCall()`: the tool and its real
 * target first, then every argument, in the order the tool's schema declares
 * them, then what the server says about itself, quoted as the server's.
 *
 * SECURITY: invariant 1 rests on the person seeing what will run (SECURITY.md,
 * "A prompt is an attack surface"). So:
 * - a target is named only from a key the tool's `inputSchema` declares — an
 *   argument the tool does not declare is never headlined (a client's decoy
 *   `path` beside the `source` and `destination` the server really uses) and
 *   is flagged "the tool does not declare this";
 * - every declared target-like key is named (source *and* destination);
 * - the order is the schema's, not the order the client chose;
 * - everything a server or client wrote is made one-line and inert here
 *   (control, bidi and invisible characters shown as escapes) before it is
 *   put next to Airlock's own words.
 * Pure: no clock, no I/O.
 */
import { callerLabel, isPersonCaller, type Caller } from '../../../shared/domain';
import type { ToolClass } from '../policy/annotations';
import { inertText } from '../servers/log-ring';

/** What `renderCall` needs: the parts of a confirmation request that describe the call. */
export interface CallToRender {
  server: string;
  tool: string;
  /** Server text. */
  title?: string;
  /** Server text. */
  description?: string;
  arguments: Readonly<Record<string, unknown>>;
  inputSchema: Readonly<Record<string, unknown>>;
  caller: Caller;
  reading: { toolClass: ToolClass };
  serverTrusted: boolean;
}

/** One thing the call acts on, from a declared argument. */
export interface RenderedTarget {
  /** The argument's name, as the schema declares it. */
  key: string;
  /** Its value(s), exactly as they will be sent (not folded: each shell folds for its space). */
  values: string[];
}

/** One argument as it will be sent. */
export interface RenderedArgument {
  key: string;
  value: unknown;
  /** The value as text: a string as is, anything else as indented JSON. */
  text: string;
  /** False when the tool's schema does not declare this key: the caller added it. */
  declared: boolean;
  /** True when this argument is one of the call's targets. */
  target: boolean;
}

/** Everything a shell shows of a call, in the order it shows it. */
export interface CallRendering {
  /** "You" or the caller's label, one line and inert (a client's name is data). */
  who: string;
  /** True when the person themself is the caller. */
  personIsCaller: boolean;
  server: string;
  /** The tool's name, one line and inert. */
  tool: string;
  /** Declared target-like arguments, in schema order. */
  targets: RenderedTarget[];
  /** Every argument: declared ones in schema order, then undeclared ones (sorted by key). */
  arguments: RenderedArgument[];
  /** Airlock's words for what the call may do, from its own reading. */
  consequence: string;
  /** The server's title, quoted as the server's, or undefined. Raw (shells make it inert). */
  serverTitle?: string;
  /** The server's description, raw (shells fold it and make it inert). */
  serverDescription?: string;
  /** One line for a notification or a log: who, the tool, its targets (folded), the consequence. */
  headline: string;
  /** The tool and its target, restated right above the question: "files › write_file on path /x". */
  restatement: string;
}

/** Keys (lowercased, without `_`/`-`) that name what a call acts on: a file, a folder, a place on the network. */
const TARGET_KEYS = new Set([
  'path', 'paths', 'file', 'files', 'filepath', 'filepaths', 'filename', 'filenames',
  'source', 'sources', 'sourcepath', 'src', 'destination', 'destinationpath', 'dest', 'target', 'targetpath', 'targetfile',
  'oldpath', 'newpath', 'dir', 'directory', 'directorypath', 'folder', 'cwd', 'workingdirectory', 'root',
  'url', 'urls', 'uri', 'uris', 'link', 'repo', 'repository',
]);
const URI_FORMATS = new Set(['uri', 'uri-reference', 'iri', 'iri-reference']);

/** How many characters of one value the one-line headline and restatement keep. */
export const HEADLINE_VALUE_CHARS = 96;
/** How many values of a list argument a target shows before "and N more". */
const TARGET_LIST_SHOWN = 3;

/** Renders a call for a person. See the header for what it guarantees. */
export function renderCall(call: CallToRender): CallRendering {
  const declared = declaredProperties(call.inputSchema);
  const sent = Object.keys(call.arguments);
  const sentSet = new Set(sent);
  const declaredKeys = [...declared.keys()].filter((key) => sentSet.has(key));
  const undeclaredKeys = sent.filter((key) => !declared.has(key)).sort();

  const targets: RenderedTarget[] = [];
  for (const key of declaredKeys) {
    if (!isTargetKey(key, declared.get(key))) continue;
    const values = targetValues(call.arguments[key]);
    if (values.length > 0) targets.push({ key, values });
  }
  const targetKeys = new Set(targets.map((t) => t.key));
  const argument = (key: string, isDeclared: boolean): RenderedArgument => {
    const value = call.arguments[key];
    return { key, value, text: valueText(value), declared: isDeclared, target: targetKeys.has(key) };
  };

  const person = isPersonCaller(call.caller);
  const who = person ? 'You' : oneLine(callerLabel(call.caller), 60);
  const server = oneLine(call.server, 60);
  const tool = oneLine(call.tool, 80);
  const consequence = consequenceOf(call.reading.toolClass, call.serverTrusted);
  const on = targetPhrase(targets, HEADLINE_VALUE_CHARS);
  const restatement = `${server} › ${tool}${on}`;
  return {
    who,
    personIsCaller: person,
    server,
    tool,
    targets,
    arguments: [...declaredKeys.map((key) => argument(key, true)), ...undeclaredKeys.map((key) => argument(key, false))],
    consequence,
    ...(call.title !== undefined && call.title !== call.tool ? { serverTitle: call.title } : {}),
    ...(call.description !== undefined ? { serverDescription: call.description } : {}),
    headline: `${person ? 'You are about' : `${who} wants`} to run ${restatement} — ${consequence}.`,
    restatement,
  };
}

/** " on path /x", " on source a and destination b", or "" — values folded to `width` characters each. */
export function targetPhrase(targets: readonly RenderedTarget[], width: number): string {
  if (targets.length === 0) return '';
  const parts = targets.map((t) => {
    const shown = t.values.slice(0, TARGET_LIST_SHOWN).map((v) => foldMiddle(oneLine(v), width));
    const more = t.values.length - shown.length;
    return `${oneLine(t.key, 40)} ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  });
  const last = parts.pop() as string;
  return ` on ${parts.length ? `${parts.join(', ')} and ${last}` : last}`;
}

/** Airlock's words for what a call may do (its reading, never the server's description). */
function consequenceOf(toolClass: ToolClass, trusted: boolean): string {
  if (toolClass === 'destructive') return 'it may delete or overwrite things';
  if (toolClass === 'changes-things') return 'it may change things';
  return trusted ? 'it only reads' : 'it says it only reads';
}

/**
 * Text made safe to put on one line beside Airlock's words: control, bidi and
 * invisible characters (line breaks included) become visible escapes.
 * `max` folds it in the middle (the end of a path is what matters most).
 */
export function oneLine(text: string, max?: number): string {
  const flat = inertText(text).replace(/[\n\t]/g, (c) => (c === '\n' ? '\\n' : '\\t'));
  return max === undefined ? flat : foldMiddle(flat, max);
}

/** `text` cut to at most `max` characters by taking out its middle ("/home/me/…/.bashrc"). */
export function foldMiddle(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const keep = Math.max(2, max - 1);
  const head = Math.ceil(keep * 0.4);
  return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - (keep - head)).join('')}`;
}

/** A value as text: strings as they are, anything else as indented JSON. */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return '(a value that cannot be shown as JSON)';
  }
}

/** The schema's own properties, in the order the server wrote them (never inherited keys). */
function declaredProperties(schema: Readonly<Record<string, unknown>>): Map<string, unknown> {
  const properties = (schema as { properties?: unknown }).properties;
  const out = new Map<string, unknown>();
  if (!properties || typeof properties !== 'object' || Array.isArray(properties)) return out;
  for (const key of Object.keys(properties)) out.set(key, (properties as Record<string, unknown>)[key]);
  return out;
}

function isTargetKey(key: string, property: unknown): boolean {
  if (TARGET_KEYS.has(key.toLowerCase().replace(/[^a-z0-9]/g, ''))) return true;
  const p = property as { format?: unknown; items?: { format?: unknown } } | null;
  return typeof p === 'object' && p !== null && (URI_FORMATS.has(String(p.format)) || URI_FORMATS.has(String(p.items?.format)));
}

function targetValues(value: unknown): string[] {
  if (typeof value === 'string') return value.length > 0 ? [value] : [];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v.length > 0);
  return [];
}
