/**
 * A real AirlockHost (real pipeline, real audit log, real sandbox) whose
 * audit log a fixture server may read when a call reaches it: the log's
 * folder (`<data>/audit`) is a link to a folder outside the data folder,
 * which the witness is granted to read. The sandbox hides the data folder
 * itself from every server, as it must — the link changes where the log's
 * bytes live, not a line of the code that writes them.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostOptions } from '../../../../electron/core/host';
import { createTestHost, fixture, type TestHost } from '../../host/host-support';

/** One call as the log-witness fixture saw it arrive. */
export interface Arrival {
  tool: string;
  arguments: Record<string, unknown>;
  /** The decision entries for this tool on disk at the moment of arrival. */
  decisions: Array<{ callId: string; tool: string; final: 'allow' | 'deny'; argumentsDigest: string; arguments: unknown }>;
}

export interface WitnessedHost extends TestHost {
  /** The real folder of the audit log (what the witness reads). */
  auditDisk: string;
  /** The witness's record folder. */
  records: string;
  /** What reached the witness, in order (read from its file). */
  arrivals(): Arrival[];
}

/** A test host with the log-witness fixture installed as `server` (untrusted unless `trusted`). */
export async function createWitnessedHost(options: Partial<HostOptions> & { server?: string; trusted?: boolean } = {}): Promise<WitnessedHost> {
  const { server = 'witness', trusted = false, ...hostOptions } = options;
  const outer = mkdtempSync(join(tmpdir(), 'airlock-witnessed-'));
  const auditDisk = join(outer, 'audit-disk');
  const dataDir = join(outer, 'data');
  mkdirSync(auditDisk, { mode: 0o700 });
  mkdirSync(dataDir, { mode: 0o700 });
  symlinkSync(auditDisk, join(dataDir, 'audit'));
  const t = await createTestHost({ ...hostOptions, dataDir });
  const records = t.folder('witness-records');
  await t.add(server, [process.execPath, fixture('calls/log-witness.mjs'), records, auditDisk], {
    profile: { filesystem: { read: [auditDisk], write: [records], persistentData: false } },
    trusted,
  });
  const file = join(records, 'arrivals');
  return {
    ...t,
    auditDisk,
    records,
    arrivals: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Arrival) : []),
    async close() {
      await t.close();
      rmSync(outer, { recursive: true, force: true });
    },
  };
}
