#!/usr/bin/env node
// The `airlock` command. The code lives in the build output (npm run build).
import { readFileSync } from 'node:fs';

/** When the build cannot load, a Node that package.json's `engines` does not take is the likely reason: say so. */
async function nodeHint() {
  try {
    const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const { default: semver } = await import('semver');
    if (semver.satisfies(process.version, engines.node)) return '';
    const lowest = semver.minVersion(engines.node);
    return `\nairlock: this is Node ${process.version}; the command line needs Node ${lowest.major}.${lowest.minor} or later (package.json: "${engines.node}"). See docs/command-line.md.`;
  } catch {
    return ''; // No hint is better than a wrong one; the error above still says what failed.
  }
}

import('../out/main/cli.js').catch(async (error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND') {
    process.stderr.write('airlock: the CLI is not built yet. Run `npm run build` in the Airlock folder first.\n');
  } else {
    process.stderr.write(`airlock: ${error && error.stack ? error.stack : error}${await nodeHint()}\n`);
  }
  process.exitCode = 1;
});
