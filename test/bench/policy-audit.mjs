// decide() cost per call, for `npm run bench` (the audit log's figures are in audit.ts).
//
//   import { measureDecide } from './policy-audit.mjs';
//   node test/bench/policy-audit.mjs        # prints one JSON object per figure
//
// The policy modules are TypeScript; they are loaded through jiti
// (installed with vite), so this file runs under plain Node without a build.
// Every figure comes with a baseline measured in the same run:
//   decide          vs. fingerprinting the same definition (the work a call already does)
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJiti } from 'jiti';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const jiti = createJiti(import.meta.url);

async function load() {
  const policy = await jiti.import(join(root, 'electron/core/policy/decide.ts'));
  const fingerprint = await jiti.import(join(root, 'electron/core/tools/fingerprint.ts'));
  return { ...policy, ...fingerprint };
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

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await measureDecide()));
}
