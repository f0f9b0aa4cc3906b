import type { SandboxSupport } from '../../../shared/domain';
import type { AirlockHost } from '../../core/host';
import { EXIT, type CliIo } from '../output';

/** `airlock doctor`: can this machine run Airlock's sandbox, and is the data folder healthy? */
export function doctor(host: AirlockHost, io: CliIo, json: boolean): number {
  const sandbox = host.sandboxStatus();
  const report = {
    sandbox,
    dataDir: host.info().dataDir,
    store: { path: host.store.path, notices: host.notices },
    node: process.version,
  };
  if (json) {
    io.out(JSON.stringify(report, null, 2));
  } else {
    io.out(formatSandbox(sandbox));
    io.out(`Data folder: ${report.dataDir}`);
    for (const notice of report.store.notices) io.out(`${notice.level.toUpperCase()}: ${notice.message}`);
  }
  if (!sandbox.supported) return EXIT.sandboxUnavailable;
  return report.store.notices.some((notice) => notice.level === 'error') ? EXIT.failure : EXIT.ok;
}

function formatSandbox(sandbox: SandboxSupport): string {
  const lines = [`Sandbox: ${sandbox.supported ? 'ready' : 'NOT AVAILABLE'} (${sandbox.platform})`, `  ${sandbox.summary}`];
  if (sandbox.missing.length) lines.push(`  Missing: ${sandbox.missing.join(', ')}`);
  if (sandbox.fix) lines.push(`  Fix: ${sandbox.fix}`);
  return lines.join('\n');
}
