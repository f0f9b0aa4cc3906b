import type { ToolDefinition, ToolFingerprint } from '../../../shared/domain';
import { sha256OfCanonical } from './canonical-json';

/**
 * The fingerprint of a tool: sha256 of the canonical JSON of its whole
 * definition — name, title, description, input and output schema,
 * annotations, `_meta` and anything else the server sent. Any change to any
 * of them (a parameter's description included) changes the fingerprint.
 * SECURITY: invariant 3 (a changed definition voids every rule) rests on this.
 */
export function fingerprintTool(definition: ToolDefinition): ToolFingerprint {
  return sha256OfCanonical(definition);
}
