/**
 * A real `airlock gateway --stdio` stand-in for tests, until the CLI wires
 * it: serves a DirectCore over server-everything on this process's stdio.
 * Run with tsx (TypeScript without a build): `node --import tsx stdio-gateway.ts [--deny server/tool]`.
 */
import { serveStdio } from '../../../../electron/core/gateway/stdio-gateway';
import { DirectCore, everythingServer } from './direct-core';

const denyAt = process.argv.indexOf('--deny');
const core = new DirectCore({ deny: new Set(denyAt > 0 && process.argv[denyAt + 1] ? [process.argv[denyAt + 1]!] : []) });
await core.addServer('everything', everythingServer());
const gateway = await serveStdio(core, { log: (message) => process.stderr.write(`${message}\n`) });
await gateway.closed;
await core.close();
process.exit(0);
