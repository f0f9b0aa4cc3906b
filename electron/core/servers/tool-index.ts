import type { ToolDefinition, ToolFingerprint } from '../../../shared/domain';
import { fingerprintTool } from '../tools/fingerprint';

/** One tool of one server as last listed, with its fingerprint. */
export interface IndexedTool {
  server: string;
  name: string;
  definition: ToolDefinition;
  fingerprint: ToolFingerprint;
}

/** A server's current tools. */
export interface ServerTools {
  server: string;
  tools: IndexedTool[];
  /** Airlock stopped reading the listing early; tools past the cap are unknown. */
  truncated: boolean;
  /** Names the server listed more than once (the first definition is kept). */
  duplicateNames: string[];
  listedAt: number;
}

/** What changed between two listings of one server, by tool name. */
export interface ToolsDiff {
  added: string[];
  removed: string[];
  /** Same name, different fingerprint. */
  changed: string[];
}

/** The read side of the index: what others (policy, gateway, UI) may look at. */
export interface ToolIndexView {
  /** A server's current tools, or undefined if never listed. */
  get(server: string): ServerTools | undefined;
  /** One tool's current definition and fingerprint. */
  lookup(server: string, tool: string): IndexedTool | undefined;
  /** Every server's current tools. */
  all(): ServerTools[];
}

/** Fingerprints each definition of a listing. */
export function indexTools(server: string, definitions: readonly ToolDefinition[]): IndexedTool[] {
  return definitions.map((definition) => ({ server, name: definition.name, definition, fingerprint: fingerprintTool(definition) }));
}

/** Compares two listings by name and fingerprint. */
export function diffTools(before: readonly IndexedTool[], after: readonly IndexedTool[]): ToolsDiff {
  const old = new Map(before.map((t) => [t.name, t.fingerprint]));
  const now = new Map(after.map((t) => [t.name, t.fingerprint]));
  return {
    added: [...now.keys()].filter((name) => !old.has(name)),
    removed: [...old.keys()].filter((name) => !now.has(name)),
    changed: [...now].filter(([name, fp]) => old.has(name) && old.get(name) !== fp).map(([name]) => name),
  };
}

/**
 * Per server, the tools it listed last, fingerprinted. Tools are keyed by
 * their own name here; namespacing (`server__tool`) is done by the callers
 * that merge servers.
 */
export class ToolIndex implements ToolIndexView {
  private readonly servers = new Map<string, { snapshot: ServerTools; byName: Map<string, IndexedTool> }>();

  /** Replaces a server's tools; returns what changed. */
  set(server: string, listing: { items: readonly ToolDefinition[]; truncated: boolean; duplicateNames?: string[] }, at: number): ToolsDiff {
    const tools = indexTools(server, listing.items);
    const diff = diffTools(this.servers.get(server)?.snapshot.tools ?? [], tools);
    this.servers.set(server, {
      snapshot: { server, tools, truncated: listing.truncated, duplicateNames: listing.duplicateNames ?? [], listedAt: at },
      byName: new Map(tools.map((t) => [t.name, t])),
    });
    return diff;
  }

  /** Forgets a server. */
  delete(server: string): void {
    this.servers.delete(server);
  }

  get(server: string): ServerTools | undefined {
    return this.servers.get(server)?.snapshot;
  }

  lookup(server: string, tool: string): IndexedTool | undefined {
    return this.servers.get(server)?.byName.get(tool);
  }

  all(): ServerTools[] {
    return [...this.servers.values()].map((s) => s.snapshot);
  }
}
