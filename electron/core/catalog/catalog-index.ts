import type { Prompt, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { ToolFingerprint } from '../../../shared/domain';
import { sha256OfCanonical } from '../tools/canonical-json';

/** A prompt or resource template with the fingerprint of its whole definition. */
export interface Pinned<T> {
  /** The name (prompts) or URI template (templates) it is keyed by. */
  key: string;
  definition: T;
  fingerprint: ToolFingerprint;
}

/** What one server offers besides tools, as last listed. */
export interface ServerCatalog {
  server: string;
  resources: Resource[];
  resourceTemplates: Pinned<ResourceTemplate>[];
  prompts: Pinned<Prompt>[];
  /** Listings Airlock stopped reading early, by name ("resources", …). */
  truncated: string[];
  listedAt: number;
}

/**
 * The fingerprint of a prompt or resource template: sha256 of the canonical
 * JSON of everything the server sent for it (a changed argument description
 * changes it). SECURITY: invariant 3, extended — a change after approval is
 * shown as a diff and the definition is withheld until approved again.
 */
export function fingerprintDefinition(definition: unknown): ToolFingerprint {
  return sha256OfCanonical(definition);
}

/** Keys each definition (first of a repeated key wins, as for tools) and fingerprints it. */
export function pin<T>(items: readonly T[], keyOf: (item: T) => unknown): Pinned<T>[] {
  const seen = new Set<string>();
  const out: Pinned<T>[] = [];
  for (const definition of items) {
    const key = keyOf(definition);
    if (typeof key !== 'string' || seen.has(key)) continue;
    seen.add(key);
    out.push({ key, definition, fingerprint: fingerprintDefinition(definition) });
  }
  return out;
}

/** Per server, what it offers besides tools. Keys are server data: kept in Maps, never plain objects. */
export class CatalogIndex {
  readonly #servers = new Map<string, ServerCatalog>();

  get(server: string): ServerCatalog | undefined {
    return this.#servers.get(server);
  }

  /** Replaces part of a server's catalog. */
  update(server: string, change: Partial<Omit<ServerCatalog, 'server'>>, at: number): ServerCatalog {
    const current = this.#servers.get(server) ?? { server, resources: [], resourceTemplates: [], prompts: [], truncated: [], listedAt: at };
    const next = { ...current, ...change, server, listedAt: at };
    this.#servers.set(server, next);
    return next;
  }

  delete(server: string): void {
    this.#servers.delete(server);
  }

  prompt(server: string, name: string): Pinned<Prompt> | undefined {
    return this.#servers.get(server)?.prompts.find((prompt) => prompt.key === name);
  }

  template(server: string, uriTemplate: string): Pinned<ResourceTemplate> | undefined {
    return this.#servers.get(server)?.resourceTemplates.find((template) => template.key === uriTemplate);
  }
}
