/**
 * A process that owns a data folder, runs one server that leaves a child in
 * its process group (both ignore SIGTERM), then exits without stopping it —
 * `process.exit()` from anywhere, as an uncaught error or a quit path that
 * forgot `dispose()` would. Run as a child process by
 * test/reliability/owner-exit.test.ts:
 *
 *   node --import tsx exit-owner.ts DATA HOME sandboxed|unsandboxed
 *
 * Prints `ready` once the server runs, and exits when a line arrives on stdin.
 */
import { join } from 'node:path';
import { AirlockHost } from '../../../electron/core/host';
import { checkSandboxSupport } from '../../../electron/core/sandbox/capability';
import { addLocalServer } from '../../support/add-server';
import { REPO } from './gateway-process';

const [dataDir, homeDir, mode] = process.argv.slice(2);
if (!dataDir || !homeDir || (mode !== 'sandboxed' && mode !== 'unsandboxed')) throw new Error('usage: exit-owner.ts DATA HOME sandboxed|unsandboxed');

// Unsandboxed: as on a machine without bwrap, where a person consented to run the server without one.
const host = new AirlockHost({
  dataDir,
  homeDir,
  version: 'test',
  hooks: { emit: () => {} },
  ...(mode === 'unsandboxed'
    ? { checkSandbox: () => checkSandboxSupport({ platform: 'linux', pathEnv: '' }), launcherOptions: { capabilityProbe: { platform: 'linux', pathEnv: '' } } }
    : {}),
});
await addLocalServer(host, 'group', [process.execPath, join(REPO, 'test/fixtures/servers/fork-grandchild.mjs')], { trusted: true, probe: mode === 'sandboxed', enable: false });
if (mode === 'unsandboxed') await host.serverSettings.setUnsandboxed('group', true);
const summary = await host.servers.start('group');
if (summary.state !== 'ready') throw new Error(`the server did not start: ${JSON.stringify(summary)}`);
process.stdout.write('ready\n');
process.stdin.once('data', () => process.exit(0));
