/**
 * What Airlock decides about a screen before anything else sees it: whether
 * it is the screen the person approved (its HTML and what it asks for,
 * pinned by fingerprint), and whether one of its requests — a tool call, a
 * link — may go on to the call pipeline or to the person. Pure functions:
 * no clock, no I/O; the room passes the time and the counts in.
 *
 * SECURITY: "Server-written code inside the host is a server" — a screen
 * reaches only its own server's tools, only those the server made visible to
 * apps, at a bounded rate; everything else is refused here, before the call
 * pipeline, and the refusal is recorded by the room.
 */
import { createHash } from 'node:crypto';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import {
  readScreenDeclaration,
  SCREEN_DOMAIN_KINDS,
  SCREEN_DOMAIN_WORDS,
  SCREEN_MIME_TYPE,
  SCREEN_PERMISSION_WORDS,
  toolScreen,
  toolVisibility,
  type ScreenDeclaration,
  type ScreenDomains,
  type ScreenPermission,
} from '../../../shared/screens';
import type { ApprovedScreen, ToolDefinition } from '../../../shared/domain';
import { sha256OfCanonical } from '../tools/canonical-json';

/** A screen as read now: its declaration and the fingerprint of everything the person approves. */
export interface ReadScreen {
  declaration: ScreenDeclaration;
  htmlSha256: string;
  /** sha256 of the canonical JSON of URI, MIME type, the HTML's sha256, the addresses and permissions it asks for. */
  fingerprint: string;
}

/** The fingerprint of a screen: any change to its HTML or to what it asks for changes it. */
export function screenFingerprint(uri: string, htmlSha256: string, domains: ScreenDomains, permissions: readonly ScreenPermission[]): string {
  return sha256OfCanonical({ uri, mimeType: SCREEN_MIME_TYPE, htmlSha256, domains, permissions: [...permissions].sort() });
}

/** A screen from a `resources/read` result: its declaration, the HTML's sha256 and the fingerprint. Throws when it is not a screen. */
export function readScreen(uri: string, result: ReadResourceResult): ReadScreen {
  const declaration = readScreenDeclaration(uri, result.contents ?? [], (blob) => Buffer.from(blob, 'base64').toString('utf8'));
  const htmlSha256 = createHash('sha256').update(declaration.html).digest('hex');
  return { declaration, htmlSha256, fingerprint: screenFingerprint(uri, htmlSha256, declaration.domains, declaration.permissions) };
}

/** The screens a server's tools name, by URI, with the tools naming each (in the server's order). */
export function screensOf(definitions: readonly ToolDefinition[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const definition of definitions) {
    const screen = toolScreen(definition);
    if (!screen) continue;
    out.set(screen.uri, [...(out.get(screen.uri) ?? []), definition.name]);
  }
  return out;
}

/** How a screen read now compares with the one approved. */
export function screenState(read: ReadScreen, approved: ApprovedScreen | undefined): 'approved' | 'new' | 'changed' {
  if (!approved) return 'new';
  return approved.fingerprint === read.fingerprint ? 'approved' : 'changed';
}

/** What differs between the approved screen and the one read now, one line each, in people's words. */
export function screenChanges(approved: ApprovedScreen, read: ReadScreen): string[] {
  const lines: string[] = [];
  if (approved.htmlSha256 !== read.htmlSha256) lines.push(`Its page changed (sha256 ${approved.htmlSha256.slice(0, 12)}… → ${read.htmlSha256.slice(0, 12)}…).`);
  for (const kind of SCREEN_DOMAIN_KINDS) {
    for (const origin of read.declaration.domains[kind]) if (!approved.domains[kind].includes(origin)) lines.push(`It now asks to ${SCREEN_DOMAIN_WORDS[kind]} ${origin}.`);
    for (const origin of approved.domains[kind]) if (!read.declaration.domains[kind].includes(origin)) lines.push(`It no longer asks to ${SCREEN_DOMAIN_WORDS[kind]} ${origin}.`);
  }
  for (const permission of read.declaration.permissions) if (!approved.permissions.includes(permission)) lines.push(`It now asks for ${SCREEN_PERMISSION_WORDS[permission]}.`);
  for (const permission of approved.permissions) if (!read.declaration.permissions.includes(permission)) lines.push(`It no longer asks for ${SCREEN_PERMISSION_WORDS[permission]}.`);
  return lines;
}

/** Most tool calls a minute from one server's screens. */
export const SCREEN_CALLS_PER_MINUTE = 30;
/** Most calls one screen may have running (or waiting for the person) at once. */
export const SCREEN_CALLS_IN_FLIGHT = 4;
/** Most links a minute one server's screens may ask to open. */
export const SCREEN_LINKS_PER_MINUTE = 6;
/** Most messages (and context updates) a minute one server's screens may send into a conversation. */
export const SCREEN_MESSAGES_PER_MINUTE = 10;

/** What a screen's tool call meets before the call pipeline. */
export interface ScreenCallFacts {
  /** The screen's server. */
  server: string;
  /** The tool as its own server lists it now, or undefined when it lists none by that name. */
  tool: ToolDefinition | undefined;
  /** The name the screen asked for (a name that is not its server's is refused). */
  name: string;
  /** Whether the screen is still the one approved (a changed screen's session asks nothing more). */
  stillApproved: boolean;
  /** Calls from this server's screens in the last minute. */
  recentCalls: number;
  /** This screen's calls still running. */
  inFlight: number;
}

/** Pass to the call pipeline (which decides and may ask), or refuse here with the reason. */
export type ScreenCallVerdict = { pass: true } | { pass: false; reason: string; decidedBy: 'not-its-tool' | 'not-for-apps' | 'screen-changed' | 'rate' | 'busy' };

/** Decides whether a screen's `tools/call` may go on to the call pipeline. */
export function decideScreenCall(facts: ScreenCallFacts): ScreenCallVerdict {
  if (!facts.stillApproved) return { pass: false, decidedBy: 'screen-changed', reason: `${facts.server}'s screen changed since you approved it; it may call nothing until you review it again.` };
  if (!facts.tool) return { pass: false, decidedBy: 'not-its-tool', reason: `${facts.server} offers no tool named “${clip(facts.name)}”; a screen may call only its own server's tools.` };
  if (!toolVisibility(facts.tool._meta).includes('app')) {
    return { pass: false, decidedBy: 'not-for-apps', reason: `${facts.server} says its tool “${clip(facts.name)}” is not for screens (its visibility is ${JSON.stringify(toolVisibility(facts.tool._meta))}).` };
  }
  if (facts.recentCalls >= SCREEN_CALLS_PER_MINUTE) return { pass: false, decidedBy: 'rate', reason: `${facts.server}'s screens asked for more than ${SCREEN_CALLS_PER_MINUTE} tool calls in a minute; Airlock refuses the rest for now.` };
  if (facts.inFlight >= SCREEN_CALLS_IN_FLIGHT) return { pass: false, decidedBy: 'busy', reason: `${facts.server}'s screen already has ${SCREEN_CALLS_IN_FLIGHT} calls running or waiting for you; it must wait for them.` };
  return { pass: true };
}

/** Why a link a screen asks to open cannot be opened at all (Airlock opens only https, without a name or password), or undefined. */
export function linkProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'it is not a web address';
  }
  if (parsed.protocol !== 'https:') return `Airlock opens only https links (this one is ${parsed.protocol.replace(/:$/, '')})`;
  if (!parsed.hostname) return 'it names no host';
  if (parsed.username || parsed.password) return 'it carries a name or password, a way to disguise where it leads';
  return undefined;
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
