#!/usr/bin/env node
// `npm start`: runs the Airlock desktop app in Electron. Electron's own program is downloaded by npm
// the first time it is needed; where that cannot happen (no internet, a server without a display),
// this says what to do instead — the `airlock` command is the same Airlock — rather than Electron's
// own stack trace.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);

/** Electron's program, if it is on this computer (never downloads). */
function electronProgram(packageDir) {
  const pathFile = join(packageDir, 'path.txt');
  const name = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const given = join(process.env.ELECTRON_OVERRIDE_DIST_PATH, name || 'electron');
    return existsSync(given) ? given : undefined;
  }
  const bundled = name ? join(packageDir, 'dist', name) : undefined;
  return bundled && existsSync(bundled) ? bundled : undefined;
}

/** The last line of what a failed download said, without its stack. */
function reasonOf(output) {
  const lines = output.split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('at ') && !line.startsWith('Downloading'));
  return lines[0]?.slice(0, 200) ?? 'no reason given';
}

function cannotStart(why) {
  process.stderr.write(
    [
      `Airlock's desktop app cannot start here: ${why}`,
      '',
      'Everything Airlock does also works from the terminal, with the same data folder:',
      '  node bin/airlock.js --help                   every command',
      '  node bin/airlock.js doctor                   can this computer sandbox servers?',
      '  node bin/airlock.js add NAME --npm PACKAGE   add a server',
      '  node bin/airlock.js connect claude           let an AI app use your servers through Airlock',
      '(docs/command-line.md has the rest).',
      '',
      'To get the app: run `npm start` again with internet access (Electron is downloaded once),',
      'or set ELECTRON_OVERRIDE_DIST_PATH to a folder that holds an Electron program.',
      '',
    ].join('\n'),
  );
  process.exit(1);
}

let packageDir;
try {
  packageDir = dirname(createRequire(join(root, 'package.json')).resolve('electron/package.json'));
} catch {
  cannotStart('the electron package is not installed (run `npm install` in the Airlock folder).');
}

let program = electronProgram(packageDir);
if (!program && !process.env.ELECTRON_OVERRIDE_DIST_PATH) {
  process.stderr.write('Downloading Electron (once)…\n');
  const install = spawnSync(process.execPath, [join(packageDir, 'install.js')], { encoding: 'utf8', env: process.env });
  if (install.status === 0) program = electronProgram(packageDir);
  else cannotStart(`Electron's own program is not on this computer, and downloading it failed (${reasonOf(`${install.stderr}\n${install.stdout}`)}).`);
}
if (!program) cannotStart(`Electron's own program was not found${process.env.ELECTRON_OVERRIDE_DIST_PATH ? ` in ELECTRON_OVERRIDE_DIST_PATH (${process.env.ELECTRON_OVERRIDE_DIST_PATH})` : ''}.`);

const child = spawn(program, [root, ...args], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('error', (error) => cannotStart(`Electron could not be run (${error.message}).`));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
