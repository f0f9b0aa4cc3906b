/** The `airlock` command's entry point (built to out/main/cli.js; bin/airlock.js runs it). */
import { createInterface } from 'node:readline/promises';
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

const io: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
  colour: wantsColour(process.stdout, process.env),
  signal: interrupt.signal,
  outColumns: () => (process.stdout.isTTY ? process.stdout.columns : undefined),
  errColumns: () => (process.stderr.isTTY ? process.stderr.columns : undefined),
  ...(process.stderr.isTTY ? { progress: (text: string) => spinner(process.stderr, text) } : {}),
  ...(interactive
    ? {
        // The safe answer is the default: only an explicit "y" or "yes" agrees.
        confirm: async (question: string) => /^y(es)?$/i.test((await ask(`${question} [y/N] `)).trim()),
        prompt: (question: string, signal?: AbortSignal) => ask(`${question} `, signal),
      }
    : {}),
};

const code = await runCli(process.argv.slice(2), io);
// After a Ctrl-C, whatever the command left waiting (a child's pipe, a timer) must not keep Airlock alive.
if (interrupt.signal.aborted) process.exit(code);
process.exitCode = code;
