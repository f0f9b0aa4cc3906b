/**
 * What a server probably needs, read from what is known before it runs:
 * folders and files its command line and its environment name, and the
 * internet domains its package documents or its URLs point to. These are
 * proposals, shown with their reason on the disclosure and in the CLI.
 * SECURITY (invariant 5): nothing here is ever granted by itself — only the
 * person's choice (a button, a flag, an answer) turns a proposal into a grant.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { expandHome, type InstallCandidate } from './candidate';

/** One grant a server probably needs, with why Airlock thinks so. */
export interface GrantProposal {
  kind: 'read' | 'write' | 'domain';
  /** An absolute path, or a domain (`api.github.com`, `127.0.0.1:8080`). */
  value: string;
  /** One line for a person. */
  reason: string;
}

/**
 * Servers whose documented API host is known: by npm package, and by a word
 * in the server's name (an entry called "github" most likely talks to GitHub).
 */
const KNOWN_APIS: Array<{ packages: string[]; word: string; domains: string[]; service: string }> = [
  { packages: ['@modelcontextprotocol/server-github', 'github-mcp-server', '@github/github-mcp-server'], word: 'github', domains: ['api.github.com'], service: 'GitHub' },
  { packages: ['@modelcontextprotocol/server-gitlab'], word: 'gitlab', domains: ['gitlab.com'], service: 'GitLab' },
  { packages: ['@modelcontextprotocol/server-slack'], word: 'slack', domains: ['slack.com'], service: 'Slack' },
  { packages: ['@modelcontextprotocol/server-brave-search'], word: 'brave', domains: ['api.search.brave.com'], service: 'Brave Search' },
  { packages: ['@modelcontextprotocol/server-google-maps'], word: 'maps', domains: ['maps.googleapis.com'], service: 'Google Maps' },
  { packages: ['@modelcontextprotocol/server-everart'], word: 'everart', domains: ['api.everart.ai'], service: 'EverArt' },
  { packages: ['@sentry/mcp-server'], word: 'sentry', domains: ['sentry.io'], service: 'Sentry' },
  { packages: ['@notionhq/notion-mcp-server'], word: 'notion', domains: ['api.notion.com'], service: 'Notion' },
  { packages: ['@linear/mcp-server'], word: 'linear', domains: ['api.linear.app'], service: 'Linear' },
  { packages: ['@stripe/mcp'], word: 'stripe', domains: ['api.stripe.com'], service: 'Stripe' },
];

// Environment names whose file is only read (a configuration, a certificate); other paths are written.
const READ_ONLY_ENV = /CONFIG|CONF\b|CERT|_CA\b|CA_|KEY_?FILE|READ|INPUT|SOURCE/i;
const PATHISH = /^(?:~(?:\/|$)|\/)/;
const URL_IN_TEXT = /\bhttps?:\/\/[^\s'"<>]+/gi;

/**
 * Proposals for a candidate. `label` is the name it came under (an import's
 * entry, the name chosen); `home` expands `~`.
 */
export function proposeGrants(candidate: InstallCandidate, options: { label?: string; home?: string } = {}): { proposals: GrantProposal[]; notes: string[] } {
  const proposals: GrantProposal[] = [];
  const notes: string[] = [];
  const add = (proposal: GrantProposal) => {
    if (!proposals.some((p) => p.kind === proposal.kind && p.value === proposal.value)) proposals.push(proposal);
  };

  // Paths on the command line (server-filesystem's folders): the hints already read them.
  for (const hint of candidate.profileHints) {
    if (!existsSync(hint.path)) {
      notes.push(`its command line names ${hint.path}, which does not exist here`);
      continue;
    }
    const folder = isDirectory(hint.path);
    add({ kind: hint.access === 'read-write' && folder ? 'write' : 'read', value: hint.path, reason: hint.reason.startsWith('passed on the command line') ? 'its command line names it' : hint.reason });
  }

  // Paths in plain settings (server-memory's MEMORY_FILE_PATH): the file's folder, to write.
  for (const [name, raw] of Object.entries(candidate.spec.env)) {
    if (!PATHISH.test(raw) || raw.includes('${')) continue;
    const path = expandHome(raw, options.home);
    if (!isAbsolute(path)) continue;
    const readOnly = READ_ONLY_ENV.test(name);
    if (existsSync(path) && isDirectory(path)) {
      add({ kind: readOnly ? 'read' : 'write', value: path, reason: `its setting ${name} names this folder` });
    } else if (readOnly) {
      if (existsSync(path)) add({ kind: 'read', value: path, reason: `its setting ${name} names this file` });
      else notes.push(`its setting ${name} names ${path}, which does not exist here`);
    } else if (existsSync(dirname(path))) {
      add({ kind: 'write', value: dirname(path), reason: `its setting ${name} keeps ${path} there` });
    } else {
      notes.push(`its setting ${name} names ${path}, whose folder ${dirname(path)} does not exist here: create it, then grant it`);
    }
  }

  // Domains: the documented API of a known package or name, and hosts of URLs it is given.
  const packageName = candidate.provenance.kind === 'npm' ? candidate.provenance.name : undefined;
  const words = `${options.label ?? ''} ${candidate.suggestedName}`.toLowerCase().split(/[^a-z0-9]+/);
  for (const api of KNOWN_APIS) {
    const byPackage = packageName !== undefined && api.packages.includes(packageName);
    if (!byPackage && !words.includes(api.word)) continue;
    for (const domain of api.domains) add({ kind: 'domain', value: domain, reason: byPackage ? `the ${api.service} API this package documents` : `its name says ${api.service}, whose API is here` });
  }
  for (const [where, text] of [...candidate.spec.args.map((arg, i) => [`argument ${i + 1}`, arg] as const), ...Object.entries(candidate.spec.env).map(([name, value]) => [`its setting ${name}`, value] as const)]) {
    for (const match of text.matchAll(URL_IN_TEXT)) {
      const host = hostOf(match[0]);
      if (host) add({ kind: 'domain', value: host, reason: `${where} points there` });
    }
  }
  return { proposals, notes };
}

/** The documented API domains of a known package, or of a server whose name says which service it talks to. */
export function knownApiDomains(packageName: string | undefined, label: string): string[] {
  const words = label.toLowerCase().split(/[^a-z0-9]+/);
  return KNOWN_APIS.filter((api) => (packageName !== undefined && api.packages.includes(packageName)) || words.includes(api.word)).flatMap((api) => api.domains);
}

/** Hosts (`host` or `host:port`) of the http(s) URLs in some texts (a server's arguments and settings). */
export function urlHosts(texts: readonly string[]): string[] {
  const hosts = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(URL_IN_TEXT)) {
    const host = hostOf(match[0]);
    if (host) hosts.add(host);
  }
  return [...hosts];
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `host`, or `host:port` for a port other than the scheme's. */
function hostOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (!parsed.hostname) return undefined;
    return parsed.port ? `${parsed.hostname}:${parsed.port}` : parsed.hostname;
  } catch {
    return undefined;
  }
}
