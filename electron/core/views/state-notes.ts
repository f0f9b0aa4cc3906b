/**
 * Why a server is not running, in words a person can act on — one reason per
 * state, never a catch-all ("You blocked this server", "unknown tool"):
 * imported and not started yet, turned off, the sandbox missing (with the
 * fix), crashed or quarantined (with its last line of output). The same
 * sentences reach the server list, `airlock show`, and a call that cannot
 * be carried out.
 */
import { APP_LABELS, type SandboxSupport, type ServerRecord, type ServerState } from '../../../shared/domain';
import type { LogLine } from '../servers/log-ring';

/** What is known about a server right now besides its record. */
export interface ServerFactsNow {
  state: ServerState;
  lastError?: string;
  log: readonly LogLine[];
  sandbox: SandboxSupport;
}

/** Why a server cannot be used right now, and whether the sandbox is the reason (exit 3 on the command line). */
export interface Unavailable {
  message: string;
  sandboxMissing: boolean;
}

/** The server's last line on stderr (what it said before it stopped), if any. */
export function lastWords(log: readonly LogLine[]): string | undefined {
  for (let i = log.length - 1; i >= 0; i -= 1) {
    const line = log[i]!;
    if (line.source === 'stderr' && line.text.trim()) return line.text.trim().slice(0, 300);
  }
  return undefined;
}

/** Why `record` cannot take calls right now; undefined when it is enabled and nothing is known to be wrong. */
export function whyUnavailable(record: ServerRecord, now: ServerFactsNow): Unavailable | undefined {
  const name = record.name;
  if (!now.sandbox.supported && !record.profile.unsandboxed) {
    return {
      message: `${name} cannot start: ${now.sandbox.summary}${now.sandbox.fix ? ` Fix: ${now.sandbox.fix}` : ''} (\`airlock doctor\` says more).`,
      sandboxMissing: true,
    };
  }
  if (!record.enabled) {
    if (record.importedFrom && !now.lastError && !record.startProblem) {
      return {
        message: `${name} was imported from ${APP_LABELS[record.importedFrom.app]} and is turned off until you start it: review it (\`airlock show ${name}\`), then start it (\`airlock start ${name}\`).`,
        sandboxMissing: false,
      };
    }
    if (now.lastError) {
      return { message: `${name} is turned off because it did not start: ${now.lastError}${said(now.log)} Once that is fixed, start it with \`airlock start ${name}\` or on its page.`, sandboxMissing: false };
    }
    if (record.startProblem) {
      return { message: `${name} is turned off because it did not start when it was added: ${record.startProblem.reason} Once that is fixed, start it with \`airlock start ${name}\` or on its page.`, sandboxMissing: false };
    }
    return { message: `${name} is turned off. Start it with \`airlock start ${name}\` or on its page.`, sandboxMissing: false };
  }
  if (now.state === 'quarantined') {
    return { message: `${name} kept crashing, so Airlock stopped restarting it: ${now.lastError ?? 'no reason given'}${said(now.log)} Restart it (\`airlock restart ${name}\`) once that is fixed.`, sandboxMissing: false };
  }
  if ((now.state === 'crashed' || now.state === 'backoff' || now.state === 'stopped') && now.lastError) {
    return { message: `${name} is not running: ${now.lastError}${said(now.log)}`, sandboxMissing: false };
  }
  return undefined;
}

/** A short note for the server list and `show`, when the state alone does not say why. */
export function stateNote(record: ServerRecord, now: ServerFactsNow): string | undefined {
  if (now.state === 'ready' || now.state === 'starting') return undefined;
  return whyUnavailable(record, now)?.message;
}

function said(log: readonly LogLine[]): string {
  const words = lastWords(log);
  return words ? ` — its last output: “${words}”.` : '.';
}
