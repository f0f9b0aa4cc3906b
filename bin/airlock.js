#!/usr/bin/env node
// The `airlock` command. The code lives in the build output (npm run build).
import('../out/main/cli.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND') {
    process.stderr.write('airlock: the CLI is not built yet. Run `npm run build` in the Airlock folder first.\n');
  } else {
    process.stderr.write(`airlock: ${error && error.stack ? error.stack : error}\n`);
  }
  process.exitCode = 1;
});
