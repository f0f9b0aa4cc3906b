/** The `airlock` command's entry point (built to out/main/cli.js; bin/airlock.js runs it). */
import { createInterface } from 'node:readline/promises';
import { runCli } from './program';
import type { CliIo } from './output';

const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;

async function ask(question: string, signal?: AbortSignal): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await rl.question(question, signal ? { signal } : {});
  } finally {
    rl.close();
  }
}

const io: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
  ...(interactive
    ? {
        // The safe answer is the default: only an explicit "y" or "yes" agrees.
        confirm: async (question: string) => /^y(es)?$/i.test((await ask(`${question} [y/N] `)).trim()),
        prompt: (question: string, signal?: AbortSignal) => ask(`${question} `, signal),
      }
    : {}),
};

process.exitCode = await runCli(process.argv.slice(2), io);
