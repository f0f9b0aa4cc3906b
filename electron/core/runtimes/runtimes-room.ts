/**
 * The runtimes room: the node, python and uv Airlock runs servers with, for
 * the host to compose — what Settings lists, the person's own choice of each
 * (checked before it is kept), and what the install flow runs with.
 */
import { join } from 'node:path';
import type { RuntimeView } from '../../../shared/views';
import { AirlockError } from '../errors';
import type { IpcHandlers } from '../../../shared/ipc';
import type { SettingsView } from '../../../shared/views';
import type { ShellIdentity } from '../ipc/shell-identity';
import { findRuntime, isExecutable, loginShellPath, RUNTIME_NAMES, searchPath, type RuntimeEnvironment, type RuntimeLookup, type RuntimeName } from './runtimes';

/** The paths the person chose, as the store keeps them (Settings › Runtimes). */
export type RuntimeSettings = Partial<Record<RuntimeName, string>>;

export interface RuntimesRoomDeps {
  /** The person's choices now. */
  read(): RuntimeSettings | undefined;
  /** Changes the person's choices in one atomic update of the store. */
  update(change: (runtimes: RuntimeSettings) => RuntimeSettings): void;
  /** The home folder to look in (default: the user's). */
  homeDir?: string;
  /** The node to run servers with when the person chose none and none was found. */
  nodePath?: string;
  /** The settings page as it is now (the answer to a change). */
  settings(): SettingsView;
}

export class RuntimesRoom {
  constructor(private readonly deps: RuntimesRoomDeps) {}

  /** The node, python and uv Airlock would use, and where each was found. */
  list(): Promise<RuntimeView[]> {
    const settings = this.deps.read() ?? {};
    return Promise.all(RUNTIME_NAMES.map((name) => findRuntime(name, settings[name], this.#environment())));
  }

  /** Points Airlock at a node, python or uv (checked first); without a path, Airlock looks for it itself again. */
  async set(name: RuntimeName, path: string | undefined): Promise<void> {
    if (path !== undefined) {
      const found = await findRuntime(name, path, this.#environment());
      if (found.problem) throw new AirlockError('invalid-request', found.problem);
    }
    this.deps.update((current) => {
      const runtimes = { ...current };
      if (path === undefined) delete runtimes[name];
      else runtimes[name] = path;
      return runtimes;
    });
  }

  /** What the install flow runs servers with: the setting, else what was found, else this process's node. */
  async lookup(): Promise<RuntimeLookup> {
    const runtimes = await this.list();
    const node = runtimes.find((runtime) => runtime.name === 'node');
    const setting = this.deps.read()?.node;
    const nodePath = setting && !node?.problem ? setting : (this.deps.nodePath ?? (node?.path && !node.problem ? node.path : undefined));
    // npm beside that node (a desktop app may not find npm on its PATH either).
    const npm = nodePath ? join(nodePath, '..', 'npm') : undefined;
    const missing: RuntimeLookup['missing'] = {};
    for (const runtime of runtimes) if (runtime.problem) missing[runtime.name] = runtime.problem;
    const python = runtimes.find((runtime) => runtime.name === 'python');
    return {
      ...(nodePath ? { nodePath } : {}),
      ...(python?.path && !python.problem ? { pythonPath: python.path } : {}),
      ...(npm && isExecutable(npm) ? { npmCommand: npm } : {}),
      pathEnv: searchPath(runtimes, process.env.PATH, await loginShellPath()),
      missing,
    };
  }

  /** Settings › Programs servers run with: the same for every shell (it is the person's machine). */
  ipcHandlers(_shell: ShellIdentity): Pick<IpcHandlers, 'runtimes.list' | 'settings.setRuntime'> {
    return {
      'runtimes.list': () => this.list(),
      'settings.setRuntime': async ({ name, path }) => (await this.set(name, path), this.deps.settings()),
    };
  }

  #environment(): RuntimeEnvironment {
    return this.deps.homeDir ? { home: this.deps.homeDir } : {};
  }
}
