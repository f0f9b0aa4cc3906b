import type { Rule, SandboxProfile, ToolAnnotations, ToolDefinition } from '../../../shared/domain';
import { defaultSandboxProfile } from '../../../shared/domain';
import { fingerprintTool } from '../../../electron/core/tools/fingerprint';
import type { PolicyFacts, SessionGrant, ToolCall } from '../../../electron/core/policy/decide';

export const NOW = Date.parse('2026-12-02T12:00:00Z');

/** A tool definition with the given annotations (undefined: none at all). */
export function tool(annotations?: ToolAnnotations, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name: 'do_thing',
    description: 'Does a thing.',
    inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'Where.' } }, required: ['path'] },
    ...(annotations ? { annotations } : {}),
    ...extra,
  };
}

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
export const CHANGES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
export const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, openWorldHint: false };
export const CONTRADICTORY: ToolAnnotations = { readOnlyHint: true, destructiveHint: true, openWorldHint: false };

/** A profile that is contained: nothing granted. */
export function contained(): SandboxProfile {
  return defaultSandboxProfile();
}

/** A profile that is not contained (a write grant). */
export function uncontained(): SandboxProfile {
  const p = defaultSandboxProfile();
  p.filesystem.write.push('/home/me/Documents');
  return p;
}

export function call(toolName = 'do_thing'): ToolCall {
  return { server: 'files', tool: toolName, arguments: { path: '/tmp/x' }, caller: { kind: 'client', name: 'Claude' } };
}

export interface FactsInput {
  annotations?: ToolAnnotations | undefined;
  definition?: ToolDefinition;
  trusted?: boolean;
  blocked?: boolean;
  profile?: SandboxProfile;
  sandboxAvailable?: boolean;
  rules?: Rule[];
  grants?: SessionGrant[];
  mode?: 'default' | 'strict';
  missing?: boolean;
  /** The tool is not in the approved set (new: added after install). Default: approved as it is now. */
  unreviewed?: boolean;
  /** The server's code changed since it was approved (found at its last start). */
  codeChanged?: boolean;
}

/** A script edited since it was approved. */
export const SCRIPT_CHANGE = { files: [{ role: 'script' as const, path: '/home/me/server.js', approved: 'a'.repeat(64), current: 'b'.repeat(64) }] };

export function facts(input: FactsInput = {}): PolicyFacts {
  const definition = input.definition ?? tool(input.annotations);
  return {
    ...(input.missing ? {} : { tool: { definition, fingerprint: fingerprintTool(definition) } }),
    server: {
      trusted: input.trusted ?? false,
      ...(input.blocked !== undefined ? { blocked: input.blocked } : {}),
      profile: input.profile ?? uncontained(),
      sandboxAvailable: input.sandboxAvailable ?? true,
      ...(input.codeChanged ? { codeChange: SCRIPT_CHANGE } : {}),
    },
    rules: input.rules ?? [],
    sessionGrants: input.grants ?? [],
    mode: input.mode ?? 'default',
    ...(input.unreviewed ? {} : { approved: { fingerprint: fingerprintTool(definition), definition, approvedAt: '2026-12-01T00:00:00.000Z' } }),
  };
}

export function ruleFor(definition: ToolDefinition, effect: 'allow' | 'deny', fingerprint = fingerprintTool(definition)): Rule {
  return { server: 'files', tool: definition.name, fingerprint, effect, createdAt: '2026-12-01T00:00:00.000Z' };
}

export function grantFor(definition: ToolDefinition, extra: Partial<SessionGrant> = {}): SessionGrant {
  return { server: 'files', tool: definition.name, fingerprint: fingerprintTool(definition), grantedAt: NOW - 1000, ...extra };
}

export const OLD_FP = 'f'.repeat(64);
