/**
 * `airlock add` and `airlock update` after the source is read: the
 * disclosure, what Airlock worked out the server probably needs (offered as
 * a question whose answer is likely yes), the consented inspection, the
 * grants and trust, then the commit. When the server does not start, the
 * person is told why and the exact command that gives it what was not
 * granted; a server that was installed but did not start is kept, turned off.
 */
import type { GrantProposalView, Disclosure, ServerSummary } from '../../../shared/views';
import type { SandboxProfile } from '../../../shared/domain';
import { DID_NOT_START } from '../../core/install';
import { messageOf } from '../../core/errors';
import { inertText } from '../../core/inert';
import { formatDisclosure, formatProbe, formatProposals, formatSummaryLine, inert, quoteArg } from '../format';
import { CliExit, EXIT, withProgress } from '../output';
import { formatPlatformWeaker } from '../sandbox-plan-format';
import { chooseScreenAsks, formatScreens, withScreenChoice, type ScreenChoice } from '../screen-format';
import { palette } from '../terminal';
import { askLikelyYes, confirmOrExit, type CliContext } from './context';
import { applyGrants, checkGrants, envOption, granted, grantWords, parseConfig, secretsFromEnv, type GrantOptions } from './grant-options';

type Profile = Omit<SandboxProfile, 'unsandboxed'>;

/** The help for `--no-probe` (add, update, import). */
export const NO_PROBE_HELP = 'skip the inspection (the server run once with the grants being given, read-only: no writes, no network, no secrets)';

/** The help for `--allow-screen` (add, update). */
export const ALLOW_SCREEN_HELP =
  'allow what its screens ask for: an address (https://host[:port], for every use they ask it for) or a permission (camera, microphone, geolocation, clipboardWrite); repeatable';

/** The help for `--allow-code-arguments` (add, update, import). */
export const ALLOW_CODE_HELP =
  'let node or python run code from outside the package Airlock pins (--import, --require, -e, python -c, a data: or http: module …), which is refused otherwise, as NODE_OPTIONS is';

/** What `installFromDisclosure` was told on the command line. */
export interface InstallOptions extends GrantOptions {
  name?: string;
  trust?: boolean;
  yes?: boolean;
  probe?: boolean;
  enable?: boolean;
  config?: string[];
  /** `--allow-screen`: addresses and permissions its screens ask for, allowed at commit. */
  allowScreen?: string[];
}

/**
 * Disclosure → what it probably needs → consented probe → grants and trust →
 * commit: the install flow on a terminal. Returns the saved server's summary.
 * A server asked to start that does not is saved turned off, and the command
 * says why (exit 1).
 */
export async function installFromDisclosure(context: CliContext, disclosure: Disclosure, options: InstallOptions): Promise<ServerSummary> {
  const { io } = context;
  const quiet = context.json();
  const c = palette(io.colour === true && !quiet);
  const api = await context.api();
  const name = options.name ?? disclosure.suggestedName;
  const userConfig = parseConfig(options.config);
  const env = { ...disclosure.env, ...envOption(options.env) };
  const yes = options.yes || context.yes();
  try {
    if (!quiet) io.out(formatDisclosure({ ...disclosure, env }, c));
    // SECURITY (invariant 7): code from outside the pinned program is refused, as NODE_OPTIONS is, unless allowed (the core refuses it too).
    if (disclosure.codeArguments?.length && !disclosure.codeArgumentsAllowed) throw new CliExit(EXIT.usage, codeArgumentsRefusal(disclosure.codeArguments));
    const offered = await offerProposals(context, disclosure, applyGrants(disclosure.profile, options), name);
    let profile = offered.profile;
    // Where this computer's sandbox holds less than Linux's, for this server with the grants it gets.
    const weaker = !quiet && disclosure.platformWeaker?.length ? formatPlatformWeaker(disclosure.platformWeaker, profile, c) : '';
    if (weaker) io.out(weaker);
    const notGranted = offered.notGranted;
    checkGrants({ read: profile.filesystem.read, write: profile.filesystem.write, domain: profile.network.allowedDomains });
    const secrets = secretsFromEnv(io, options.secret);
    profile = { ...profile, secrets: [...new Set([...profile.secrets, ...Object.keys(secrets)])] };
    let screenChoice: ScreenChoice | undefined;
    const commit = (enable: boolean) =>
      api.invoke('install.commit', { draftId: disclosure.draftId, name, profile, trusted: options.trust === true, secrets, userConfig, env, enable, ...(screenChoice ? { screens: screenChoice } : {}) });
    let report;
    if (options.probe !== false) {
      const remoteHost = disclosure.provenance.kind === 'remote' ? disclosure.provenance.host : undefined;
      // A remote server is inspected over the network: the first request to it is sent only after this yes.
      await confirmOrExit(io, remoteHost ? `Connect to ${remoteHost} and list what ${name} offers (signing in if it asks; the headers shown are sent)?` : `Inspect ${name} in a locked sandbox (no network, no writes, no secrets)?`, yes, context);
      try {
        report = await withProgress(io, quiet, remoteHost ? `Connecting to ${remoteHost}…` : `${installingWords(disclosure)} in a locked sandbox…`, () =>
          api.invoke('install.probe', { draftId: disclosure.draftId, userConfig, env, profile, trusted: options.trust === true, ...(remoteHost ? headerSecrets(disclosure, secrets) : {}) }),
        );
      } catch (error) {
        if (!messageOf(error).startsWith(DID_NOT_START)) throw error;
        return await keepTurnedOff(context, name, error, notGranted, () => commit(false));
      }
      if (!quiet) io.out(formatProbe(report, c));
    }
    // Its screens (MCP Apps): what each asks for, refused unless allowed here (`--allow-screen`) or later (`airlock screens NAME --allow …`).
    if (options.allowScreen?.length) {
      if (!report) throw new CliExit(EXIT.usage, `--allow-screen needs the inspection: it is what says what ${name}'s screens ask for. Leave out --no-probe, or allow later with \`airlock screens ${name} --allow …\`.`);
      screenChoice = chooseScreenAsks(report.screens ?? [], options.allowScreen, name);
    }
    if (report && !quiet && report.screens?.length) io.out(formatScreens(withScreenChoice(report.screens, screenChoice), { inspected: { server: name } }));
    const enable = options.enable !== false && !disclosure.importedFrom;
    const where = disclosure.provenance.kind === 'remote' ? `runs on ${disclosure.provenance.host}, no sandbox${profile.secrets.length ? ` · secrets sent: ${profile.secrets.join(', ')}` : ''}` : grantWords(profile);
    const replaces = disclosure.replaces;
    const version = 'version' in disclosure.provenance ? disclosure.provenance.version : undefined;
    const verb = replaces ? `Update ${name} to ${version ?? 'the new version'}${enable ? ' and restart it' : ' (it stays turned off)'},` : enable ? `Add and start ${name}` : `Add (turned off) ${name}`;
    await confirmOrExit(io, `${verb} with: ${where}${options.trust ? ' · its annotations trusted' : ''}?`, yes, context);
    const summary = await withProgress(io, quiet, enable ? `Saving ${name} and starting it in its sandbox…` : `Saving ${name}…`, () => commit(enable));
    const started = !enable || summary.state === 'ready';
    if (context.json()) io.out(JSON.stringify({ ok: started, server: summary, probe: report ?? null }, null, 2));
    else if (started && replaces) {
      io.out(`${c.ok(`Updated ${name} from ${replaces.version} to ${version ?? 'the new version'}${enable ? '; it runs in its sandbox.' : ', turned off as it was.'}`)}\n${formatSummaryLine(summary, c)}`);
    } else if (started) {
      io.out(`${c.ok(enable ? (disclosure.provenance.kind === 'remote' ? `Added ${name}; connected to ${disclosure.provenance.host}.` : `Added ${name}; it runs in its sandbox.`) : `Added ${name}, turned off${report ? '' : ', not inspected'}: start it with \`airlock start ${name}\`.`)}\n${formatSummaryLine(summary, c)}`);
    }
    if (!started) {
      const why = summary.stateNote ?? `${name} is turned off because it did not start: ${summary.lastError ?? 'no reason given'}.`;
      throw new CliExit(EXIT.failure, `${inert(why)}\nIt was saved (not as running): ${afterSaved(name, notGranted)}`);
    }
    return summary;
  } catch (error) {
    await api.invoke('install.cancel', { draftId: disclosure.draftId }).catch(() => {}); // The install's own failure is what the person is told; a draft left behind (or already saved) is swept when Airlock stops.
    throw error;
  }
}

/**
 * Shows what the server probably needs and, on a terminal, offers it as one
 * question whose Enter is yes. Without a terminal (or with --yes, which never
 * grants what Airlock only worked out) it is not granted, and the exact
 * command that grants it is printed. Returns the profile and what stays ungranted.
 */
async function offerProposals(context: CliContext, disclosure: Disclosure, profile: Profile, name: string): Promise<{ profile: Profile; notGranted: GrantProposalView[] }> {
  const { io } = context;
  const quiet = context.json();
  const offered = disclosure.proposals.filter((proposal) => !granted(profile, proposal));
  if (offered.length === 0) return { profile, notGranted: [] };
  const c = palette(io.colour === true && !quiet);
  if (!quiet) io.out(formatProposals(offered, c));
  const answer = await askLikelyYes(context, `Grant ${name} ${grantFlags(offered)}?`);
  if (answer) {
    const add = (kind: GrantProposalView['kind']) => offered.filter((proposal) => proposal.kind === kind).map((proposal) => proposal.value);
    return { profile: applyGrants(profile, { read: add('read'), write: add('write'), domain: add('domain') }), notGranted: [] };
  }
  if (answer === undefined && !quiet) {
    const why = context.yes() ? '--yes answers the questions, but never grants what Airlock only worked out' : 'there is no terminal to ask on';
    io.out(`Not granted (${why}). To give it, run: ${rerunWith(context, offered) ?? `the same command with ${grantFlags(offered)}`}`);
  }
  return { profile, notGranted: offered };
}

/**
 * The server was installed but did not start at its inspection: it is kept,
 * turned off (asked on a terminal, Enter keeps it; kept with --yes), so the
 * person can grant what it needs and start it; the reason is saved with it.
 * Ends the command with exit 1 either way.
 */
async function keepTurnedOff(context: CliContext, name: string, error: unknown, notGranted: readonly GrantProposalView[], commit: () => Promise<ServerSummary>): Promise<never> {
  const { io } = context;
  const reason = messageOf(error);
  const asking = io.confirm !== undefined && !context.json() && !context.yes();
  // On a terminal the reason comes before the question (it is what the person decides on), and is not repeated after it.
  if (asking) io.err(inertText(reason));
  const keep = (await askLikelyYes(context, `${name} did not start. Keep it, turned off, to give it what it needs and start it later?`)) ?? true;
  const told = asking ? `${name} did not start.` : reason;
  if (!keep) {
    const again = notGranted.length ? `\nIt probably needs what was not granted: ${rerunWith(context, notGranted) ?? `run it again with ${grantFlags(notGranted)}`}` : '';
    throw new CliExit(EXIT.failure, `${told}\nNothing was kept.${again}`);
  }
  await withProgress(io, context.json(), `Saving ${name}, turned off…`, commit);
  throw new CliExit(EXIT.failure, `${told}\n${name} was saved, turned off, with the reason: ${afterSaved(name, notGranted)}`);
}

/** What to do with a server saved turned off: grant what was not granted (exactly), then start it. */
function afterSaved(name: string, notGranted: readonly GrantProposalView[]): string {
  if (notGranted.length) return `it probably needs what was not granted — \`airlock grant ${name} ${grantFlags(notGranted)}\`, then \`airlock start ${name}\` (or \`airlock remove ${name}\`).`;
  return `fix what it needs (e.g. \`airlock grant ${name} …\`) and start it, or \`airlock remove ${name}\`.`;
}

/** `--write /path --domain api.example.com`: the flags that grant proposals. */
function grantFlags(proposals: readonly GrantProposalView[]): string {
  return proposals.map((proposal) => `--${proposal.kind} ${quoteArg(proposal.value)}`).join(' ');
}

/** The command as the person typed it, with the grant flags added before `--` (undefined when it is not known). */
function rerunWith(context: CliContext, proposals: readonly GrantProposalView[]): string | undefined {
  const argv = context.argv;
  if (!argv?.length) return undefined;
  const flags = proposals.flatMap((proposal) => [`--${proposal.kind}`, proposal.value]);
  const dashes = argv.indexOf('--');
  const words = dashes < 0 ? [...argv, ...flags] : [...argv.slice(0, dashes), ...flags, ...argv.slice(dashes)];
  return `\`airlock ${words.map(quoteArg).join(' ')}\``;
}

/** What the inspection does first: installing the package it pins. */
function installingWords(disclosure: Disclosure): string {
  const p = disclosure.provenance;
  if (p.kind === 'npm') return `Installing ${p.name}@${p.version} (install scripts off) and inspecting it`;
  if (p.kind === 'pypi') return `Installing ${p.name}==${p.version} and the ${p.packageCount - 1} package(s) it needs (every file checked against its hash) and inspecting it`;
  return 'Inspecting it';
}

/** The --secret values a remote server's headers send: it is inspected with them (it is reached with its headers). */
export function headerSecrets(disclosure: Disclosure, secrets: Record<string, string>): { secrets?: Record<string, string> } {
  const asked = new Set(disclosure.secrets.map((secret) => secret.name));
  const given = Object.fromEntries(Object.entries(secrets).filter(([name]) => asked.has(name)));
  return Object.keys(given).length > 0 ? { secrets: given } : {};
}

/** Why a command line with code-loading arguments is refused, and how to allow it. */
export function codeArgumentsRefusal(found: NonNullable<Disclosure['codeArguments']>): string {
  const list = found.map((item) => `  “${inert(item.text)}” ${item.reason}`).join('\n');
  return `Its command line runs code from outside what Airlock pinned and checked:\n${list}\nAirlock refuses this, as it refuses NODE_OPTIONS. If you trust it, run the command again with --allow-code-arguments (you will be warned). Nothing was run.`;
}
