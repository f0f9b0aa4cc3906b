/** The `airlock` command's entry point (built to out/main/cli.js; bin/airlock.js runs it). */
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { runCli } from './program';
import { EXIT, type CliIo } from './output';
import { fitToTerminal } from './server-text';
import { spinner, wantsColour } from './terminal';
import { loadTextWidth } from './text-width';

const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
// A terminal gets rows laid out by Airlock, measured exactly; a pipe does not need the measure.
if (process.stdin.isTTY === true || process.stdout.isTTY === true || process.stderr.isTTY === true) await loadTextWidth();

// One Ctrl-C stops the command cleanly (drafts removed, servers stopped, exit 130);
// a second one, while that cleanup runs, ends the process at once.
const interrupt = new AbortController();
// Exit hooks that libraries set up as they load (when-exit, under conf's atomic writes) answer a SIGINT by sending
// the process another one after their own clean-up: Airlock would take it for a second Ctrl-C and cut its own
// clean-up short (a half-installed server left behind). Airlock handles SIGINT itself; their 'exit' hooks still run.
for (const listener of process.listeners('SIGINT')) process.removeListener('SIGINT', listener);
process.on('SIGINT', () => {
  if (interrupt.signal.aborted) process.exit(EXIT.interrupted);
  interrupt.abort();
});

async function ask(question: string, signal?: AbortSignal): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  // At a prompt the terminal is in raw mode: Ctrl-C reaches readline, not the process.
  rl.on('SIGINT', () => {
    process.stdout.write('\n');
    process.emit('SIGINT');
  });
  try {
    // Ctrl-C withdraws every question; so does `signal` (the question was answered elsewhere).
    // Airlock wraps the question's rows itself (it may hold a server's words: see server-text.ts).
    return await rl.question(fitToTerminal(question, process.stdout.columns), { signal: signal ? AbortSignal.any([interrupt.signal, signal]) : interrupt.signal });
  } finally {
    rl.close();
  }
}

/** Asks for a line without echoing it (a secret): what is typed goes nowhere but the answer. */
async function askHidden(question: string): Promise<string> {
  process.stdout.write(fitToTerminal(question, process.stdout.columns));
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: process.stdin, output: silent, terminal: true });
  rl.on('SIGINT', () => {
    process.stdout.write('\n');
    process.emit('SIGINT');
  });
  try {
    return await rl.question('', { signal: interrupt.signal });
  } finally {
    rl.close();
    process.stdout.write('\n');
  }
}

// A reader that stopped reading (`airlock audit | head -3`) is not a failure of the command: what it did not
// read is dropped, and the command ends as it would have (its clean-up included). Any other write error is.
let stdoutGone = false;
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  stdoutGone = true;
});

const io: CliIo = {
  out: (text) => void (stdoutGone || process.stdout.write(`${text}\n`)),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
  colour: wantsColour(process.stdout, process.env),
  signal: interrupt.signal,
  outColumns: () => (process.stdout.isTTY ? process.stdout.columns : undefined),
  errColumns: () => (process.stderr.isTTY ? process.stderr.columns : undefined),
  ...(process.stderr.isTTY ? { progress: (text: string) => spinner(process.stderr, text) } : {}),
  ...(interactive
    ? {
        // The safe answer is the default: only an explicit "y" or "yes" agrees — unless the question says yes is its default.
        confirm: async (question: string, options?: { defaultYes?: boolean }) => {
          const answer = (await ask(`${question} ${options?.defaultYes ? '[Y/n]' : '[y/N]'} `)).trim();
          return options?.defaultYes ? !/^n(o)?$/i.test(answer) : /^y(es)?$/i.test(answer);
        },
        prompt: (question: string, signal?: AbortSignal) => ask(`${question} `, signal),
        promptSecret: (question: string) => askHidden(`${question} `),
      }
    : {}),
};

const code = await runCli(process.argv.slice(2), io);
// After a Ctrl-C, whatever the command left waiting (a child's pipe, a timer) must not keep Airlock alive.
if (interrupt.signal.aborted) process.exit(code);
process.exitCode = code;
