/**
 * A command on a pseudo-terminal of its own (util-linux `script(1)`, installed
 * on Debian by default): the program sees a real TTY on stdin, stdout and
 * /dev/tty; the test reads the screen and types, as a person would.
 */
import { spawn, type ChildProcess } from 'node:child_process';

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

export class PtySession {
  private screen = '';
  readonly exited: Promise<number | null>;

  private constructor(private readonly child: ChildProcess) {
    child.stdout!.on('data', (chunk: Buffer) => (this.screen += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (this.screen += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Starts `argv` on a new pseudo-terminal; `script -e` exits with the command's own code. */
  static start(argv: string[], env: NodeJS.ProcessEnv = process.env): PtySession {
    const child = spawn('script', ['-qfec', argv.map(quote).join(' '), '/dev/null'], { env: { ...env, TERM: 'dumb', COLUMNS: '200' }, stdio: ['pipe', 'pipe', 'pipe'] });
    return new PtySession(child);
  }

  /** Everything printed so far. */
  get output(): string {
    return this.screen;
  }

  /** Resolves once the screen matches (after `from` characters), or fails with what was printed. */
  async waitFor(pattern: RegExp, timeoutMs = 60_000, from = 0): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(this.screen.slice(from));
      if (match) return match;
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${pattern}; it shows:\n${this.screen}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Types raw bytes (a control character such as Ctrl-C, `\u0003`), as at the keyboard. */
  type(bytes: string): void {
    this.child.stdin!.write(bytes);
  }

  /** Types a line, as at the keyboard. */
  typeLine(text: string): void {
    this.child.stdin!.write(`${text}\r`);
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    this.child.kill(signal);
  }
}
