/**
 * A command in a real terminal of its own (tmux, on a server socket of its
 * own): the program sees a TTY on stdin, stdout and stderr, as a person's
 * shell gives it; the test reads the screen as the person sees it and types.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;
let sessions = 0;

export class TmuxSession {
  private constructor(
    private readonly socket: string,
    /** Where the command's exit status is written when it ends (tmux itself does not always collect it). */
    private readonly statusFile: string,
  ) {}

  /** Starts `argv` with `env` (added to this process's) in a terminal `columns` wide; the pane stays after the command ends. */
  static start(argv: readonly string[], env: Record<string, string | undefined> = {}, columns = 160): TmuxSession {
    const socket = `airlock-test-${process.pid}-${(sessions += 1)}`;
    const session = new TmuxSession(socket, join(tmpdir(), `${socket}.status`));
    const assignments = Object.entries(env).map(([key, value]) => (value === undefined ? `-u ${key}` : `${key}=${quote(value)}`));
    // The shell waits for the command and writes its status (128 + the signal's number when a signal ended it). Its own
    // Ctrl-C handler is `:`, not "ignore": a handler is reset when the command starts, so Ctrl-C reaches the command as typed.
    const script = `trap : INT; "$@"; echo $? > ${quote(session.statusFile)}`;
    session.tmux('new-session', '-d', '-s', 'main', '-x', String(columns), '-y', '50', `env ${assignments.join(' ')} sh -c ${quote(script)} sh ${argv.map(quote).join(' ')}`);
    session.tmux('set-option', '-t', 'main', 'remain-on-exit', 'on');
    return session;
  }

  /** The screen, scrollback included, with rows the terminal wrapped joined again (-J). */
  screen(): string {
    return this.tmux('capture-pane', '-p', '-J', '-t', 'main', '-S', '-').replace(/\n+$/, '');
  }

  /** The screen with the rows Airlock wrapped itself (a continuation marked `↪`) joined again: what it printed. */
  text(): string {
    return this.screen().replace(/\n *↪ /g, '');
  }

  /** Waits until what was printed (`text()`, from character `from`) matches; fails with what it shows. */
  async waitFor(pattern: RegExp, timeoutMs = 180_000, from = 0): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const shown = this.text().slice(from);
      const match = pattern.exec(shown);
      if (match) return match;
      if (Date.now() > deadline) throw new Error(`The terminal never showed ${pattern}. It shows:\n${shown.slice(-4000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Types a line and presses Enter (an empty line is Enter alone). */
  typeLine(text: string): void {
    if (text.length) this.tmux('send-keys', '-t', 'main', '-l', text);
    this.tmux('send-keys', '-t', 'main', 'Enter');
  }

  /** Presses a key by tmux's name for it (`C-c`). */
  press(key: string): void {
    this.tmux('send-keys', '-t', 'main', key);
  }

  /** The command's exit code, once it has ended (128 + the signal's number when a signal ended it, as shells say). */
  async exitCode(timeoutMs = 180_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const written = existsSync(this.statusFile) ? readFileSync(this.statusFile, 'utf8').trim() : '';
      if (written) return Number(written);
      if (Date.now() > deadline) throw new Error(`The command never ended. The terminal shows:\n${this.screen().slice(-4000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  close(): void {
    rmSync(this.statusFile, { force: true });
    try {
      this.tmux('kill-server');
    } catch {
      // Already gone: nothing of it is left to close.
    }
  }

  private tmux(...args: string[]): string {
    const result = spawnSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    if (result.error) throw new Error(`tmux is needed for this test (apt-get install tmux): ${result.error.message}`);
    if (result.status !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr}`);
    return result.stdout;
  }
}
