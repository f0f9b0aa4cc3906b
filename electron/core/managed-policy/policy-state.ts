/**
 * From what the locations held to the policy in force: each document is
 * validated on its own (so a problem names its own file and line), then
 * the documents are merged key by key, the higher-precedence location
 * winning (a configuration profile or the registry over the JSON file).
 *
 * SECURITY: fails closed — one document that cannot be read or does not
 * match the schema makes the whole policy `unreadable`, and an unreadable
 * policy forbids everything it could forbid (see policy-rules.ts). A
 * document someone other than an administrator could change is `ignored`:
 * not part of the policy at all, and reported.
 */
import type { z } from 'zod';
import { ManagedPolicySchema, type ManagedPolicy } from './policy-schema';
import type { PolicyDocument } from './policy-sources';

/** A problem an administrator must fix, with where. */
export interface PolicyProblem {
  location: string;
  /** The line in the file (JSON files); absent for the registry and profiles. */
  line?: number;
  /** The key it is about (`allowedServers[2].npm`), when there is one. */
  key?: string;
  problem: string;
}

/** A location whose file someone other than an administrator can change. */
export interface IgnoredLocation {
  location: string;
  why: string;
}

/** The policy in force. */
export type PolicyState =
  | { status: 'none'; locations: readonly string[]; ignored: IgnoredLocation[] }
  | {
      status: 'active';
      policy: ManagedPolicy;
      /** Which location set each top-level key. */
      from: Readonly<Record<string, string>>;
      /** The documents read, and their sha256. */
      documents: Array<{ location: string; sha256?: string }>;
      locations: readonly string[];
      ignored: IgnoredLocation[];
    }
  | { status: 'unreadable'; problems: PolicyProblem[]; locations: readonly string[]; ignored: IgnoredLocation[] };

/** The policy the documents (highest precedence first) make together. */
export function policyState(documents: readonly PolicyDocument[], locations: readonly string[]): PolicyState {
  const ignored = documents.flatMap((doc) => (doc.status === 'ignored' ? [{ location: doc.location, why: doc.why }] : []));
  const problems: PolicyProblem[] = documents.flatMap((doc) => (doc.status === 'unreadable' ? [{ location: doc.location, ...(doc.line !== undefined ? { line: doc.line } : {}), problem: doc.problem }] : []));
  const read = documents.filter((doc): doc is Extract<PolicyDocument, { status: 'read' }> => doc.status === 'read');
  const valid: Array<{ location: string; policy: ManagedPolicy; sha256?: string }> = [];
  for (const doc of read) {
    const parsed = ManagedPolicySchema.safeParse(doc.value);
    if (parsed.success) valid.push({ location: doc.location, policy: parsed.data, ...(doc.sha256 ? { sha256: doc.sha256 } : {}) });
    else problems.push(...parsed.error.issues.slice(0, 20).map((issue) => problemOf(doc, issue)));
  }
  if (problems.length > 0) return { status: 'unreadable', problems, locations, ignored };
  if (valid.length === 0) return { status: 'none', locations, ignored };
  const merged: Record<string, unknown> = { version: 1 };
  const from: Record<string, string> = {};
  for (const doc of valid) {
    for (const [key, value] of Object.entries(doc.policy)) {
      if (key === 'version' || value === undefined || Object.hasOwn(from, key)) continue;
      merged[key] = value;
      from[key] = doc.location;
    }
  }
  return { status: 'active', policy: merged as ManagedPolicy, from, documents: valid.map(({ location, sha256 }) => ({ location, ...(sha256 ? { sha256 } : {}) })), locations, ignored };
}

function problemOf(doc: Extract<PolicyDocument, { status: 'read' }>, issue: z.core.$ZodIssue): PolicyProblem {
  const path = [...issue.path];
  let problem = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys;
    path.push(keys[0]!);
    problem = `unknown key${keys.length > 1 ? 's' : ''} ${keys.map((key) => `"${key}"`).join(', ')}: managed policy version 1 has no such setting (check the spelling; docs/organisations.md lists them)`;
  }
  const key = keyPath(path);
  const line = doc.positionOf?.(path).line;
  return { location: doc.location, ...(line !== undefined ? { line } : {}), ...(key ? { key } : {}), problem };
}

/** `allowedServers[2].npm` for a path. */
export function keyPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('');
}

/** "/etc/airlock/managed-policy.json, line 4: …" */
export function problemWords(problem: PolicyProblem): string {
  return `${problem.location}${problem.line !== undefined ? `, line ${problem.line}` : ''}${problem.key ? ` (${problem.key})` : ''}: ${problem.problem}`;
}
