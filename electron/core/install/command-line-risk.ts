/**
 * Risk markers on a server's command line, for install-time disclosure
 * (SECURITY.md rule 3: show the exact command and highlight `sudo`, `rm -rf`,
 * network use and paths outside expected folders). Markers inform the
 * person; they never decide anything — approval and the sandbox protect.
 */

/** What kind of risk a marker is; stable for tests, CLI `--json` and UI styling. */
export type CommandLineRiskCode =
  | 'elevated-privileges'
  | 'shell'
  | 'shell-operator'
  | 'download-and-run'
  | 'unpinned-package'
  | 'auto-yes'
  | 'recursive-delete'
  | 'network-address'
  | 'unencrypted-network'
  | 'secret-path'
  | 'path'
  | 'encoded-command'
  | 'container'
  | 'all-permissions';

/** Where a marker sits: a character range inside one element of `[command, ...args]`. */
export interface CommandLineSpan {
  /** 0 is the command, 1 the first argument, … */
  argIndex: number;
  start: number;
  end: number;
}

/** One risk found on a command line: the text, where it is and why it matters. */
export interface CommandLineRisk {
  code: CommandLineRiskCode;
  severity: 'danger' | 'warning' | 'info';
  /** The marked text, as it appears in the joined command line. */
  text: string;
  /** One sentence for a person. */
  reason: string;
  /** Usually one span; a marker across arguments (`curl … | sh`) has one per argument. */
  spans: CommandLineSpan[];
}

interface Rule {
  code: CommandLineRiskCode;
  severity: CommandLineRisk['severity'];
  pattern: RegExp;
  reason: string | ((match: RegExpExecArray) => string | undefined);
  /** Which capture group to mark (default: the whole match). */
  group?: number;
}

// Token boundaries on the joined command line: start, whitespace, or a shell
// punctuation character. Lookbehind keeps the marked text tight.
const B = String.raw`(?<=^|[\s;&|(\`'"])`;
const E = String.raw`(?=$|[\s;&|)\`'"])`;
const EXACT_VERSION = /^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** Reason for an npm-style `name[@version]` in capture `group`, or none when the version is exact. */
function npmPinReason(group: number): (match: RegExpExecArray) => string | undefined {
  return (match) => {
    const spec = match[group] ?? '';
    const at = spec.lastIndexOf('@');
    const version = at > 0 ? spec.slice(at + 1) : '';
    if (EXACT_VERSION.test(version)) return undefined;
    return version
      ? `package version “${version}” is not exact: each start may run a different version`
      : 'no version given: each start runs whatever version is newest';
  };
}

const RULES: Rule[] = [
  {
    code: 'elevated-privileges',
    severity: 'danger',
    pattern: new RegExp(String.raw`${B}(?:\S*/)?(sudo|doas|pkexec|runas|gsudo)${E}`, 'g'),
    reason: 'runs with administrator rights: the sandbox cannot contain what it does',
  },
  {
    code: 'download-and-run',
    severity: 'danger',
    pattern: new RegExp(
      String.raw`${B}(?:curl|wget|iwr|Invoke-WebRequest)\b[^|;&]*\|\s*(?:sudo\s+)?(?:\S*/)?(?:sh|bash|zsh|dash|ksh|fish|python3?|node|iex|Invoke-Expression)${E}`,
      'gi',
    ),
    reason: 'downloads code and runs it at once: nobody has seen what it will run',
  },
  {
    code: 'encoded-command',
    severity: 'danger',
    pattern: new RegExp(
      String.raw`${B}(?:\S*[/\\])?(?:powershell|pwsh)(?:\.exe)?\s(?:.*\s)?-(?:e|enc|EncodedCommand|encodedcommand)\s+\S+|${B}base64\s+(?:-d|--decode)\b[^|]*\|\s*(?:\S*/)?(?:sh|bash|zsh)${E}`,
      'g',
    ),
    reason: 'runs a hidden (encoded) command that cannot be read here',
  },
  {
    code: 'recursive-delete',
    severity: 'danger',
    pattern: new RegExp(
      String.raw`${B}(?:\S*/)?rm\s+(?:-[a-zA-Z]*(?:r[a-zA-Z]*f|f[a-zA-Z]*r|R[a-zA-Z]*f|f[a-zA-Z]*R)[a-zA-Z]*|-r\s+-f|-f\s+-r|--recursive\s+--force|--force\s+--recursive)${E}|${B}(?:Remove-Item\b[^|;]*-Recurse|rmdir\s+/s|rd\s+/s|del\s+/[sfq])`,
      'gi',
    ),
    reason: 'deletes files and folders recursively, without asking',
  },
  {
    code: 'shell',
    severity: 'danger',
    pattern: new RegExp(
      String.raw`^(?:\S*[/\\])?(sh|bash|zsh|dash|ksh|fish|cmd|cmd\.exe|powershell|powershell\.exe|pwsh)${E}(?=.*\s(?:-c|-lc|-ic|/c|/C|/k|-Command|-command|-File)${E})`,
      'g',
    ),
    reason: 'runs a shell command line: any program can run from it',
  },
  {
    code: 'shell-operator',
    severity: 'warning',
    // `&&`, `||`, `|`, `;`, `>`, `>>`, `<`, `$(`, backticks, a lone `&`.
    pattern: /\$\(|`|&&|\|\||\||;|>>?|<(?!<)|(?<![\w=])&(?![\w=])/g,
    reason: (match) => `shell operator “${match[0]}”: more than one program or a redirection, which only a shell understands`,
  },
  {
    code: 'auto-yes',
    severity: 'warning',
    pattern: new RegExp(String.raw`${B}(-y|--yes)${E}`, 'g'),
    reason: 'answers yes to every question, so an install happens without a prompt',
  },
  {
    code: 'unpinned-package',
    severity: 'warning',
    // npx / bunx / pnpm dlx / yarn dlx [flags] PACKAGE[@VERSION]
    pattern: new RegExp(
      String.raw`${B}(?:\S*/)?(?:npx|bunx|pnpx|pnpm\s+dlx|yarn\s+dlx|npm\s+exec)(?:\s+(?:-y|--yes|-q|--quiet|--prefer-online|--prefer-offline))*\s+(--\s+)?((?:@[\w.~-]+/)?[\w.~][\w.~-]*(?:@\S*)?)`,
      'g',
    ),
    group: 2,
    reason: npmPinReason(2),
  },
  {
    code: 'unpinned-package',
    severity: 'warning',
    // npx -p PACKAGE / --package=PACKAGE (each package it installs)
    pattern: /(?<=(?:^|\s)(?:\S*\/)?npx\s.*)(?<=\s)(?:-p|--package)[= ]((?:@[\w.~-]+\/)?[\w.~-]+(?:@\S*)?)/g,
    group: 1,
    reason: npmPinReason(1),
  },
  {
    code: 'unpinned-package',
    severity: 'warning',
    // uvx PACKAGE / uv tool run PACKAGE / pipx run PACKAGE, pinned with ==X or @X
    pattern: new RegExp(
      String.raw`${B}(?:\S*/)?(?:uvx|uv\s+tool\s+run|pipx\s+run)(?:\s+--from\s+(\S+))?(?:\s+-{1,2}[\w-]+(?:[= ][^\s-]\S*)?)*?\s+([A-Za-z0-9][\w.\-\[\],]*(?:(?:==|@)\S+)?)`,
      'g',
    ),
    group: 2,
    reason: (match) => {
      const spec = match[1] ?? match[2] ?? '';
      if (/(?:==|@)v?\d+(?:\.\d+)*$/.test(spec)) return undefined;
      return 'no exact version given: each start may run a different release';
    },
  },
  {
    code: 'container',
    severity: 'warning',
    pattern: new RegExp(String.raw`${B}(?:\S*/)?(?:docker|podman)\s+(?:run|exec|compose)${E}`, 'g'),
    reason: 'runs a container: the container engine acts outside Airlock’s sandbox',
  },
  {
    code: 'all-permissions',
    severity: 'danger',
    pattern: new RegExp(String.raw`${B}(--privileged|--allow-all|-A|--dangerously-[\w-]+|-v\s+/:/\S*|--volume[= ]/:/\S*)${E}`, 'g'),
    reason: 'asks for every permission: nothing inside it is restricted',
  },
  {
    code: 'secret-path',
    severity: 'danger',
    pattern: new RegExp(
      String.raw`(?:~|\$HOME|\$\{HOME\}|/home/[^/\s]+|/Users/[^/\s]+|/root)?/(?:\.ssh|\.aws|\.gnupg|\.config/gcloud|\.kube|\.docker/config\.json|\.netrc|\.npmrc|\.pypirc|Library/Keychains)(?:/\S*)?|/etc/(?:shadow|sudoers)\S*|\S*id_(?:rsa|ed25519|ecdsa)\S*|${B}\S*\.env(?:\.\w+)?${E}`,
      'g',
    ),
    reason: 'names a place where secrets are kept',
  },
  {
    code: 'unencrypted-network',
    severity: 'warning',
    pattern: /\bhttp:\/\/[^\s'"|;]+/g,
    reason: 'contacts a network address without encryption',
  },
  {
    code: 'network-address',
    severity: 'info',
    pattern: /\b(?:https|wss?|ftp):\/\/[^\s'"|;]+/g,
    reason: 'contacts a network address',
  },
  {
    code: 'path',
    severity: 'info',
    // `/c`, `/k`: Windows switches, not paths — a path needs two characters after the slash.
    pattern: new RegExp(String.raw`(?<=^|\s|=)(?:~(?:/\S*)?|/[^\s'"|;]{2,}|[A-Za-z]:\\\S*)`, 'g'),
    reason: 'names a file or folder: the server may want to read or write there',
  },
];

/**
 * Finds risk markers on a command line `[command, ...args]`. Each marker has
 * its text, a reason for a person, and its spans as (argument, start, end),
 * so a disclosure can highlight them in the exact, untruncated argv.
 * The command itself (index 0) is not reported as a `path`.
 */
export function analyzeCommandLine(argv: readonly string[]): CommandLineRisk[] {
  const starts: number[] = [];
  let joined = '';
  argv.forEach((arg, index) => {
    if (index > 0) joined += ' ';
    starts.push(joined.length);
    joined += arg;
  });

  const risks: CommandLineRisk[] = [];
  const taken: [number, number, CommandLineRiskCode][] = [];
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    for (let match = rule.pattern.exec(joined); match; match = rule.pattern.exec(joined)) {
      if (match[0].length === 0) {
        rule.pattern.lastIndex += 1;
        continue;
      }
      const reason = typeof rule.reason === 'function' ? rule.reason(match) : rule.reason;
      if (reason === undefined) continue;
      let start = match.index;
      let text = match[0];
      if (rule.group !== undefined && match[rule.group] !== undefined) {
        text = match[rule.group]!;
        start = match.index + match[0].lastIndexOf(text);
      }
      const end = start + text.length;
      // Weaker markers inside a stronger one's text add nothing (a path inside `~/.ssh`).
      if ((rule.code === 'path' || rule.code === 'network-address') && taken.some(([s, e]) => start >= s && end <= e)) continue;
      if (rule.code === 'path' && start === 0) continue;
      if (rule.code === 'shell-operator' && insideUrl(joined, start)) continue;
      taken.push([start, end, rule.code]);
      risks.push({ code: rule.code, severity: rule.severity, text, reason, spans: toSpans(start, end, starts, argv) });
    }
  }
  const order = { danger: 0, warning: 1, info: 2 } as const;
  return risks.sort(
    (a, b) => order[a.severity] - order[b.severity] || a.spans[0]!.argIndex - b.spans[0]!.argIndex || a.spans[0]!.start - b.spans[0]!.start,
  );
}

function insideUrl(joined: string, at: number): boolean {
  const before = joined.slice(0, at);
  const tokenStart = Math.max(before.lastIndexOf(' '), before.lastIndexOf('"'), before.lastIndexOf("'")) + 1;
  return /^[a-z][a-z0-9+.-]*:\/\/[^\s|;]*$/i.test(joined.slice(tokenStart, at)) && joined[at] !== '|' && joined[at] !== ';';
}

function toSpans(start: number, end: number, starts: number[], argv: readonly string[]): CommandLineSpan[] {
  const spans: CommandLineSpan[] = [];
  argv.forEach((arg, index) => {
    const argStart = starts[index]!;
    const argEnd = argStart + arg.length;
    const from = Math.max(start, argStart);
    const to = Math.min(end, argEnd);
    if (from < to) spans.push({ argIndex: index, start: from - argStart, end: to - argStart });
  });
  return spans;
}

/**
 * One entry per highlighted span, the shape a disclosure view draws
 * (`shared/views.ts` CommandRisk). `info` markers (paths, https addresses)
 * are left out unless asked for: they are context, not warnings.
 */
export function riskSpans(
  risks: readonly CommandLineRisk[],
  options: { includeInfo?: boolean } = {},
): { arg: number; start: number; end: number; reason: string; severity: CommandLineRisk['severity'] }[] {
  return risks
    .filter((risk) => options.includeInfo || risk.severity !== 'info')
    .flatMap((risk) => risk.spans.map((span) => ({ arg: span.argIndex, start: span.start, end: span.end, reason: risk.reason, severity: risk.severity })));
}
