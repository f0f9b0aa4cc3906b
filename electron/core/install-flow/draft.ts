/**
 * What an install is made of before it is committed — a draft: its source,
 * what was disclosed and inspected, what the person will approve — and what a
 * draft becomes in the server's record at commit: the tools, prompts,
 * resource templates and screens the person saw, approved as they saw them.
 * Also the words and errors about a draft's source. The flow that moves a
 * draft from prepare to commit is install-flow.ts.
 */
import type { Prompt, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { join, sep } from 'node:path';
import type { z } from 'zod';
import { APP_LABELS, ownEntry, type ServerRecord, type ToolDefinition } from '../../../shared/domain';
import type { EditableProfileSchema } from '../../../shared/ipc';
import type { Disclosure, ProbeReport, ScreenView } from '../../../shared/views';
import { noScreenDomains, parseScreenDomain, SCREEN_DOMAIN_KINDS, type ScreenDomains, type ScreenPermission } from '../../../shared/screens';
import type { Pinned } from '../catalog/catalog-index';
import { AirlockError, messageOf } from '../errors';
import type { InstallCandidate, McpbBundle } from '../install';
import { NpmSourceError, PypiSourceError } from '../install/source-errors';
import type { CodeArgument } from '../install/code-arguments';
import type { AddressZone } from '../remote/address';
import type { MemoryVault } from '../remote/oauth-vault';
import type { RemoteWire } from '../remote/remote-channel';
import { runtimeFor, type RuntimeLookup } from '../runtimes';
import { readView } from '../screens/screen-room';
import type { ProbedScreen } from '../servers/probe';

export type EditableProfile = z.infer<typeof EditableProfileSchema>;

/** A source being installed: everything disclosed, nothing enabled yet. */
export interface Draft {
  id: string;
  /** The server's own folder in Airlock's data (npm packages, unpacked bundles), if it has one. */
  dir?: string;
  candidate: InstallCandidate;
  bundle?: McpbBundle;
  installed: boolean;
  /** Credentials found in an imported config, to be moved into the secret store. */
  secretValues: Record<string, string>;
  /** Profile suggested at disclosure: nothing granted (hints are shown, never granted silently). */
  profile: EditableProfile;
  /** Definitions the person saw at inspection (they become the approved ones). */
  probed?: ProbeReport;
  probedTools?: Array<{ definition: ToolDefinition; fingerprint: string }>;
  /** Prompts and resource templates seen at inspection, pinned like tools (they become the approved ones). */
  probedCatalog?: { prompts: Pinned<Prompt>[]; resourceTemplates: Pinned<ResourceTemplate>[] };
  /** Screens read at inspection (MCP Apps): those read become the approved ones, as the person saw them. */
  probedScreens?: ProbedScreen[];
  /** For an update: the server this draft replaces when committed. */
  replaces?: string;
  /** The entry name an import came under (for proposals: "github" probably talks to GitHub). */
  label?: string;
  /**
   * A remote server: the zone its name resolved in at disclosure, and its
   * sign-in held in memory until commit (a cancelled add keeps nothing).
   */
  remote?: { zone: AddressZone; vault: MemoryVault; wire?: RemoteWire };
  /** The person allowed arguments that run code from outside the pinned program (asked for with the source). */
  allowCodeArguments?: boolean;
  /** Why it did not start at its inspection: saved turned off, its record says so. */
  startFailure?: string;
  /** The install under way (npm or pip running in `dir`): cancel stops it and waits for it to end before removing the folder. */
  installing?: { stop: AbortController; ended: Promise<void> };
}


/** The tools a person reviewed, keyed by their (server-chosen) names in a null-prototype object. */
export function approvedSet(tools: ReadonlyArray<{ definition: ToolDefinition; fingerprint: string }>, approvedAt: string): ServerRecord['approvedTools'] {
  const set = Object.create(null) as ServerRecord['approvedTools'];
  for (const tool of tools) {
    // The first definition of a name wins, as in the tool index.
    if (!ownEntry(set, tool.definition.name)) set[tool.definition.name] = { fingerprint: tool.fingerprint, definition: tool.definition, approvedAt };
  }
  return set;
}

export function sourceLabel(draft: Draft): string {
  const origin = draft.candidate.importedFrom;
  const kind = draft.candidate.provenance.kind;
  const base = kind === 'npm' ? 'npm package' : kind === 'mcpb' ? 'MCPB bundle' : kind === 'pypi' ? 'Python package (PyPI)' : kind === 'remote' ? 'remote server (by URL)' : 'local command';
  if (draft.candidate.registry) return `${kind === 'remote' ? 'remote server' : base}, listed in the MCP Registry`;
  if (!origin) return base;
  return `${base}, imported from ${APP_LABELS[origin.app]}`;
}

export function sourceError(error: unknown, command?: string, lookup?: RuntimeLookup): AirlockError {
  if (error instanceof AirlockError) return error;
  const message = messageOf(error);
  // A registry or index that could not be reached is not a wrong request: the same command may work once the network does.
  if ((error instanceof NpmSourceError || error instanceof PypiSourceError) && error.network) return new AirlockError('unavailable', message);
  // A runtime that is missing: say which, where Airlock looked, and how to add it.
  const runtime = command && /was not found on PATH/.test(message) ? runtimeFor(command) : undefined;
  const advice = runtime ? lookup?.missing[runtime] : undefined;
  return new AirlockError('invalid-request', advice ? `${message}. ${advice}` : message);
}


/** Where in `[command, ...args]` the program Airlock pinned is: an npm package's bin script, a PyPI package's console script. */
export function pinnedProgramIndex(candidate: InstallCandidate, argv: readonly string[]): number | undefined {
  const provenance = candidate.provenance;
  if (provenance.kind !== 'npm' && provenance.kind !== 'pypi') return undefined;
  const inside = provenance.kind === 'npm' ? join(provenance.installDir, 'node_modules') + sep : join(provenance.installDir, 'venv', 'bin') + sep;
  // An npm bin that is not run with node is the command itself: nothing runs before it. (A PyPI package's command is its venv's python.)
  if (provenance.kind === 'npm' && argv[0]?.startsWith(inside)) return undefined;
  const index = argv.findIndex((arg, i) => i > 0 && arg.startsWith(inside));
  return index > 0 ? index : undefined;
}

/** The disclosure's `codeArguments`, when there are any, and whether the person allowed them. */
export function codeArgumentsView(found: CodeArgument[], allowed: boolean): Pick<Disclosure, 'codeArguments' | 'codeArgumentsAllowed'> {
  return found.length ? { codeArguments: found.map((item) => ({ arg: item.arg, text: item.text, reason: item.reason })), ...(allowed ? { codeArgumentsAllowed: true } : {}) } : {};
}

/** The prompts and resource templates seen at inspection, as approved definitions. */
export function approvedCatalog(probed: NonNullable<Draft['probedCatalog']>, now: string): Pick<ServerRecord, 'approvedPrompts' | 'approvedResourceTemplates'> {
  const approve = (items: Pinned<unknown>[]) => Object.fromEntries(items.map((item) => [item.key, { fingerprint: item.fingerprint, definition: item.definition as Record<string, unknown>, approvedAt: now }]));
  return { approvedPrompts: approve(probed.prompts), approvedResourceTemplates: approve(probed.resourceTemplates) };
}

/** The screens read at inspection, as the disclosure shows them (nothing allowed yet: the person chooses at commit). */
export function probedScreenViews(screens: readonly ProbedScreen[], record: ServerRecord): ScreenView[] {
  return screens.map((screen) =>
    screen.read
      ? readView(screen.uri, screen.tools, screen.read, undefined, record)
      : {
          uri: screen.uri,
          tools: screen.tools,
          state: 'unreadable' as const,
          problem: screen.problem ?? 'it could not be read',
          declared: noScreenDomains(),
          allowed: noScreenDomains(),
          permissions: { asked: [], granted: [] },
          changes: [],
          notes: [],
        },
  );
}

/**
 * What a new server's record holds about its screens: each screen read at
 * the inspection approved as it was read (the person saw it in the
 * disclosure), and the asked-for addresses and permissions the person
 * allowed — each checked to be an exact web address. None read: nothing.
 *
 * An update (`before`: the record it replaces) loses nothing the person
 * decided: not inspected, it keeps the old pins and grants as they were (a
 * screen that reads back different is then a change to review, as ever);
 * inspected without a choice made (the command line), it keeps each
 * address and permission still asked for by a screen read now — one no
 * screen asks for any more goes, as it would give nothing.
 */
export function screenSettingsAtCommit(
  screens: readonly ProbedScreen[] | undefined,
  chosen: { allowed: ScreenDomains; permissions: ScreenPermission[] } | undefined,
  approvedAt: string,
  before?: ServerRecord['screens'],
): Pick<ServerRecord, 'screens'> {
  if (screens === undefined && !chosen) return before ? { screens: before } : {};
  const read = (screens ?? []).filter((screen) => screen.read);
  if (before && !chosen) chosen = stillAsked(before, read);
  if (read.length === 0 && !chosen) return {};
  const approved = Object.create(null) as NonNullable<ServerRecord['screens']>['approved'];
  for (const screen of read) {
    const { declaration, htmlSha256, fingerprint } = screen.read!;
    approved[screen.uri] = { fingerprint, htmlSha256, domains: declaration.domains, permissions: declaration.permissions, approvedAt };
  }
  const allowed = noScreenDomains();
  for (const kind of SCREEN_DOMAIN_KINDS) {
    for (const raw of chosen?.allowed[kind] ?? []) {
      const parsed = parseScreenDomain(raw);
      if (!parsed.ok) throw new AirlockError('invalid-request', `${parsed.reason}. Nothing was saved.`);
      if (!allowed[kind].includes(parsed.origin)) allowed[kind].push(parsed.origin);
    }
    allowed[kind].sort();
  }
  return { screens: { approved, allowed, permissions: [...new Set(chosen?.permissions ?? [])].sort() } };
}

/** Of what the person allowed a server's screens, what the screens read now still ask for. */
function stillAsked(before: NonNullable<ServerRecord['screens']>, read: readonly ProbedScreen[]): { allowed: ScreenDomains; permissions: ScreenPermission[] } {
  const allowed = noScreenDomains();
  for (const kind of SCREEN_DOMAIN_KINDS) {
    const asked = new Set(read.flatMap((screen) => screen.read!.declaration.domains[kind]));
    allowed[kind] = before.allowed[kind].filter((origin) => asked.has(origin));
  }
  const asked = new Set(read.flatMap((screen) => screen.read!.declaration.permissions));
  return { allowed, permissions: before.permissions.filter((permission) => asked.has(permission)) };
}
