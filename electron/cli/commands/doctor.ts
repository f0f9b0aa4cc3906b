import type { SandboxSupport } from '../../../shared/domain';
import type { SharedHost } from '../../core/ipc/shared-host';
import { EXIT, type CliIo } from '../output';

/** `airlock doctor`: can this machine run Airlock's sandbox, and is the data folder healthy? */
export async function doctor(api: SharedHost, io: CliIo, json: boolean): Promise<number> {
  const sandbox = await api.invoke('sandbox.status', {});
  const info = await api.invoke('app.info', {});
  const report = { sandbox, dataDir: info.dataDir, notices: info.notices, node: process.version, owner: api.mode === 'owner' ? 'this process' : 'another Airlock process' };
  if (json) {
    io.out(JSON.stringify(report, null, 2));
  } else {
    io.out(formatSandbox(sandbox));
    io.out(`Data folder: ${report.dataDir}`);
    for (const notice of report.notices) io.out(`${notice.level.toUpperCase()}: ${notice.message}`);
  }
  if (!sandbox.supported) return EXIT.sandboxUnavailable;
  return report.notices.some((notice) => notice.level === 'error') ? EXIT.failure : EXIT.ok;
}

function formatSandbox(sandbox: SandboxSupport): string {
  const lines = [`Sandbox: ${sandbox.supported ? 'ready' : 'NOT AVAILABLE'} (${sandbox.platform})`, `  ${sandbox.summary}`];
  if (sandbox.missing.length) lines.push(`  Missing: ${sandbox.missing.join(', ')}`);
  if (sandbox.fix) lines.push(`  Fix: ${sandbox.fix}`);
  return lines.join('\n');
}
