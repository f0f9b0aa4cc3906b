import type { Command } from 'commander';
import type { SandboxSupport } from '../../../shared/domain';
import type { RuntimeView } from '../../../shared/views';
import type { SharedHost } from '../../core/ipc/shared-host';
import { CliExit, EXIT, type CliIo } from '../output';
import { formatGuarantees } from '../sandbox-plan-format';
import { DOCTOR_DOCS as DOCS } from '../docs-pointers';
import { nodeSupport, nodeSupportLines } from '../node-support';
import { palette, type Palette } from '../terminal';
import { auditExportLines, organisationLines } from './settings';
import type { CliContext } from './servers';

/** `airlock doctor`: can this machine run Airlock's sandbox, which node/python/uv will servers use, is the data folder healthy? */
export async function doctor(api: Pick<SharedHost, 'invoke' | 'mode'>, io: CliIo, json: boolean): Promise<number> {
  const sandbox = await api.invoke('sandbox.status', {});
  const guarantees = await api.invoke('sandbox.guarantees', {});
  const info = await api.invoke('app.info', {});
  const runtimes = await api.invoke('runtimes.list', {});
  const organisation = await api.invoke('organisation.get', {});
  const auditExport = await api.invoke('audit.exportStatus', {});
  const node = nodeSupport();
  const report = { sandbox, guarantees, runtimes, organisation, auditExport, dataDir: info.dataDir, notices: info.notices, node: process.version, nodeSupport: node, owner: api.mode === 'owner' ? 'this process' : 'another Airlock process' };
  const c = palette(io.colour === true && !json);
  if (json) {
    io.out(JSON.stringify(report, null, 2));
  } else {
    io.out(formatSandbox(sandbox, c));
    const rows = formatGuarantees(guarantees, c);
    if (rows) io.out(rows);
    io.out(`  ${DOCS.sandbox}`);
    io.out(formatRuntimes(runtimes, c));
    io.out(formatPython(runtimes, c));
    io.out(`  ${DOCS.runtimes}`);
    io.out(nodeSupportLines(node).join('\n'));
    io.out(`  ${DOCS.node}`);
    io.out(organisationLines(organisation).join('\n'));
    io.out(auditExportLines(auditExport).join('\n'));
    io.out(`  ${DOCS.organisation}`);
    io.out(`Data folder: ${report.dataDir}`);
    io.out(`  ${DOCS.dataFolder}`);
    for (const notice of report.notices) io.out(`${notice.level === 'error' ? c.danger('ERROR') : notice.level.toUpperCase()}: ${notice.message}`);
  }
  if (!sandbox.supported) return EXIT.sandboxUnavailable;
  return report.notices.some((notice) => notice.level === 'error') ? EXIT.failure : EXIT.ok;
}

function formatSandbox(sandbox: SandboxSupport, c: Palette): string {
  const lines = [`Sandbox: ${sandbox.supported ? c.ok('ready') : c.danger('NOT AVAILABLE')} (${sandbox.platform})`, `  ${sandbox.summary}`];
  if (sandbox.missing.length) lines.push(`  Missing: ${sandbox.missing.join(', ')}`);
  if (sandbox.fix) lines.push(`  Fix: ${sandbox.fix}`);
  return lines.join('\n');
}

/** One line per runtime: where it is and where it was found, or what to do. */
export function formatRuntimes(runtimes: readonly RuntimeView[], c: Palette = palette(false)): string {
  const lines = ['Programs servers run with:'];
  for (const runtime of runtimes) {
    const found = runtime.path && !runtime.problem;
    lines.push(`  ${runtime.name.padEnd(7)}${found ? `${runtime.path}${runtime.version ? ` (${runtime.version})` : ''} — from ${runtime.from}` : c.warn(runtime.problem ?? 'not found')}`);
  }
  return lines.join('\n');
}

/**
 * How Python servers get installed, and where uv is: Airlock pins PyPI
 * packages itself with python3's venv and pip (`--require-hashes`), so uv
 * is needed only for a `uvx` command line a person adds as it is.
 */
export function formatPython(runtimes: readonly RuntimeView[], c: Palette = palette(false)): string {
  const python = runtimes.find((runtime) => runtime.name === 'python');
  const uv = runtimes.find((runtime) => runtime.name === 'uv');
  const lines = ['Python servers (`add --pypi`, Find servers, imported `uvx` entries):'];
  lines.push(
    python?.path && !python.problem
      ? `  installed by Airlock into a virtual environment of their own with ${python.path}'s venv and pip, every file checked against its hash; uv is not needed for them.`
      : `  ${c.warn('cannot be installed: no python3 was found.')} Install Python 3 (with venv and pip), or \`airlock runtimes set python /path/to/python3\`.`,
  );
  lines.push(
    uv?.path && !uv.problem
      ? `  uv: ${uv.path}${uv.version ? ` (${uv.version})` : ''} — from ${uv.from}; used only by a \`uvx\` command line you add as it is.`
      : '  uv: not found, and not needed for these; a `uvx` command line downloads at every start, which the sandbox blocks, so prefer `airlock add NAME --pypi PACKAGE`.',
  );
  return lines.join('\n');
}

/** `airlock runtimes [set|reset]`: see and choose the node, python and uv servers run with. */
export function registerRuntimeCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const runtimes = program.command('runtimes').description('the node, python and uv servers run with: where Airlock found them, or where you point it (does not ask)');
  runtimes
    .command('list', { isDefault: true })
    .description('show what was found and where')
    .action(async () => {
      const list = await (await context.api()).invoke('runtimes.list', {});
      io.out(context.json() ? JSON.stringify(list, null, 2) : formatRuntimes(list, palette(io.colour === true)));
    });
  runtimes
    .command('set')
    .description('point Airlock at a program, e.g. `airlock runtimes set node ~/.nvm/versions/node/v22.11.0/bin/node`')
    .argument('<node|python|uv>')
    .argument('<path>')
    .action(async (name: string, path: string) => {
      const settings = await (await context.api()).invoke('settings.setRuntime', { name: runtimeName(name), path: absolute(path, io) });
      io.out(context.json() ? JSON.stringify(settings, null, 2) : `Airlock will run ${name} servers with ${settings.runtimes[runtimeName(name)]}.`);
    });
  runtimes
    .command('reset')
    .description('forget your setting: Airlock looks for the program itself again')
    .argument('<node|python|uv>')
    .action(async (name: string) => {
      const settings = await (await context.api()).invoke('settings.setRuntime', { name: runtimeName(name) });
      io.out(context.json() ? JSON.stringify(settings, null, 2) : `Airlock looks for ${name} itself again (\`airlock runtimes\` shows what it finds).`);
    });
}

function runtimeName(name: string): 'node' | 'python' | 'uv' {
  if (name === 'node' || name === 'python' || name === 'uv') return name;
  throw new CliExit(EXIT.usage, `Say which program: node, python or uv (not “${name}”).`);
}

function absolute(path: string, io: CliIo): string {
  if (path === '~' || path.startsWith('~/')) return `${io.env.HOME ?? ''}${path.slice(1)}`;
  return path.startsWith('/') ? path : `${process.cwd()}/${path}`;
}
