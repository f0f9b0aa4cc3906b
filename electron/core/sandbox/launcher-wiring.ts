/**
 * How the host wires the sandbox launcher to the rest of the core: a request
 * to an unlisted address is a network question for the person (approvals),
 * every network decision and every refusal the OS sandbox reports goes to the
 * audit log (and a refusal is kept briefly, so a failed call can name the
 * host), and the audit key is hidden from every server. The rooms it reads
 * are bound late (`rooms()`); whether a server may be asked at all is the
 * host's to say (`mayAsk`: the sandbox decides no call).
 */
import type { SandboxProfile } from '../../../shared/domain';
import type { SandboxLauncherOptions } from './launcher-options';
import type { NetworkDecision, NetworkRequestHandler } from './network-proxy';
import { createSandboxLauncher, type AirlockSandboxLauncher } from './sandbox-launcher';

/** The rooms the launcher reports to. */
export interface LauncherRooms {
  readonly approvals: { askNetwork: NetworkRequestHandler };
  readonly activity: { keyFile: string | undefined; recordSandboxRefusal(server: string, text: string): void; recordNetwork(decision: NetworkDecision): void };
  readonly calls: { noteNetworkDecision(decision: NetworkDecision): void };
  /** What a server does while its calls run, set against its tools' claims (the claims room). */
  readonly claims: {
    observeRefusal(server: string, text: string): void;
    observeNetwork(decision: NetworkDecision): void;
    observeLaunch(server: string): ReturnType<NonNullable<SandboxLauncherOptions['observe']>>;
  };
}

export function composeLauncher(
  wiring: {
    homeDir?: string;
    mayAsk: (server: string, profile: SandboxProfile) => boolean;
    /** False when the data folder keeps everything inside it (see HostOptions.selfContained). */
    recordDataFolder?: boolean;
    options?: SandboxLauncherOptions | undefined;
  },
  rooms: () => LauncherRooms,
): AirlockSandboxLauncher {
  const keyFile = rooms().activity.keyFile;
  return createSandboxLauncher({
    ...(wiring.homeDir ? { homeDir: wiring.homeDir } : {}),
    onNetworkRequest: (server, host, port) => rooms().approvals.askNetwork(server, host, port),
    mayAsk: wiring.mayAsk,
    ...(wiring.recordDataFolder === false ? { recordDataFolder: false } : {}),
    // SECURITY (invariant 5): the audit key stays out of every server's reach, wherever it was moved.
    ...(keyFile ? { hiddenFiles: [keyFile] } : {}),
    onViolation: (server, text) => (rooms().activity.recordSandboxRefusal(server, text), rooms().claims.observeRefusal(server, text)),
    // Every decision goes to the audit log; refusals are also kept briefly, so a failed call can name the host;
    // an attempt during a call is set against the tool's claims.
    onNetworkDecision: (decision) => (rooms().activity.recordNetwork(decision), rooms().calls.noteNetworkDecision(decision), rooms().claims.observeNetwork(decision)),
    // What a server with a network proxy or write grants does while calls run (and nothing for the others).
    observe: (server) => rooms().claims.observeLaunch(server),
    ...wiring.options,
  });
}
