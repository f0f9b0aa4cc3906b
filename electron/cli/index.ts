/** The `airlock` command's entry point (built to out/main/cli.js; bin/airlock.js runs it). */
import { runCli } from './program';

const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
});
process.exitCode = code;
