// decide() cost per call, audit append and verify rates, for `npm run bench`.
//
//   import { measureDecide, measureAuditAppend, measureAuditVerify } from './policy-audit.mjs';
//   node test/bench/policy-audit.mjs        # prints one JSON object per figure
//
// The policy and audit modules are TypeScript; they are loaded through jiti
// (installed with vite), so this file runs under plain Node without a build.
// Every figure comes with a baseline measured in the same run:
//   decide          vs. fingerprinting the same definition (the work a call already does)
//   audit append    vs. a bare appendFile + fsync of a line of the same size
//   audit verify    vs. JSON.parse of every line of the same files
import { mkdtemp, rm, open, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJiti } from 'jiti';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const jiti = createJiti(import.meta.url);

async function load() {
  const policy = await jiti.import(join(root, 'electron/core/policy/decide.ts'));
  const fingerprint = await jiti.import(join(root, 'electron/core/tools/fingerprint.ts'));
  const audit = await jiti.import(join(root, 'electron/core/audit/audit-log.ts'));
  return { ...policy, ...fingerprint, ...audit };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const definition = {
  name: 'write_file',
  description: 'Create a new file or completely overwrite an existing file with new content.',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
    required: ['path', 'content'],
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
};

/** Median microseconds per decide() call (and per fingerprint, the baseline), over `rounds` rounds of `n` calls. */
export async function measureDecide({ n = 20_000, rounds = 5 } = {}) {
  const { decide, fingerprintTool } = await load();
  const fp = fingerprintTool(definition);
  const facts = {
    tool: { definition, fingerprint: fp },
    server: { trusted: true, profile: { filesystem: { read: [], write: ['/tmp'], persistentData: false }, network: { allowedDomains: [] }, secrets: [] }, sandboxAvailable: true },
    rules: Array.from({ length: 50 }, (_, i) => ({ server: i % 2 ? 'files' : 'other', tool: `t${i}`, fingerprint: fp, effect: 'allow', createdAt: 'x' })),
    sessionGrants: [],
    mode: 'default',
  };
  const call = { server: 'files', tool: 'write_file', arguments: { path: '/tmp/a', content: 'x' }, caller: { kind: 'client', name: 'bench' } };
  const decideUs = [];
  const baseUs = [];
  let sink = 0;
  for (let r = 0; r < rounds; r++) {
    let t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink += decide(call, facts, 1_700_000_000_000 + i).reasons.length;
    decideUs.push(Number(process.hrtime.bigint() - t) / 1000 / n);
    t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink += fingerprintTool(definition).length;
    baseUs.push(Number(process.hrtime.bigint() - t) / 1000 / n);
  }
  if (sink === 0) throw new Error('unreachable');
  const value = median(decideUs);
  const baseline = median(baseUs);
  return { name: 'policy-decide-us-per-call', value, baseline, ratio: value / baseline, unit: 'µs' };
}

/** Audit appends per second (decision, fsync'ed) against a bare append + fsync of the same line size. */
export async function measureAuditAppend({ n = 300 } = {}) {
  const { AuditLog } = await load();
  const dir = await mkdtemp(join(tmpdir(), 'airlock-bench-audit-'));
  try {
    const log = new AuditLog({ dir });
    const input = {
      caller: { kind: 'client', name: 'bench' }, server: 'files', tool: 'write_file', fingerprint: 'a'.repeat(64),
      arguments: { path: '/tmp/a', content: 'hello' }, verdict: 'allow', final: 'allow', reasons: ['You trust this server.'],
    };
    let t = process.hrtime.bigint();
    let size = 0;
    for (let i = 0; i < n; i++) size = JSON.stringify(await log.appendDecision(input)).length;
    const auditSeconds = Number(process.hrtime.bigint() - t) / 1e9;
    const line = Buffer.from(`${'x'.repeat(size)}\n`);
    const plain = join(dir, 'plain.jsonl');
    t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      const h = await open(plain, 'a');
      await h.write(line);
      await h.sync();
      await h.close();
    }
    const plainSeconds = Number(process.hrtime.bigint() - t) / 1e9;
    const value = n / auditSeconds;
    const baseline = n / plainSeconds;
    return { name: 'audit-append-per-second', value, baseline, ratio: value / baseline, unit: 'entries/s' };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Audit verify rate (entries/s) against parsing the same lines. */
export async function measureAuditVerify({ n = 2000 } = {}) {
  const { AuditLog } = await load();
  const dir = await mkdtemp(join(tmpdir(), 'airlock-bench-verify-'));
  try {
    const log = new AuditLog({ dir, maxFileBytes: 256 * 1024 });
    const input = {
      caller: { kind: 'client', name: 'bench' }, server: 'files', tool: 'write_file', fingerprint: 'a'.repeat(64),
      arguments: { path: '/tmp/a', content: 'hello' }, verdict: 'allow', final: 'allow', reasons: ['You trust this server.'],
    };
    await Promise.all(Array.from({ length: n }, () => log.appendDecision(input)));
    const runs = [];
    const base = [];
    for (let r = 0; r < 3; r++) {
      let t = process.hrtime.bigint();
      const result = await log.verify();
      if (!result.ok || result.entries !== n) throw new Error('verify failed in the bench');
      runs.push(n / (Number(process.hrtime.bigint() - t) / 1e9));
      t = process.hrtime.bigint();
      let count = 0;
      for (const f of (await readdir(dir)).filter((x) => x.endsWith('.jsonl'))) {
        for (const l of (await readFile(join(dir, f), 'utf8')).split('\n')) if (l) count += JSON.parse(l).seq > 0 ? 1 : 0;
      }
      base.push(count / (Number(process.hrtime.bigint() - t) / 1e9));
    }
    const value = median(runs);
    const baseline = median(base);
    return { name: 'audit-verify-per-second', value, baseline, ratio: value / baseline, unit: 'entries/s' };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await measureDecide()));
  console.log(JSON.stringify(await measureAuditAppend()));
  console.log(JSON.stringify(await measureAuditVerify()));
}
