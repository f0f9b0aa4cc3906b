/**
 * `npm run bench`: every benchmark in its own process, one after another
 * (so one's memory and load do not colour the next). Each prints one JSON
 * object per figure: name, value, the baseline measured in the same run, ratio.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const here = import.meta.dirname;
const benches: Array<{ file: string; args?: string[] }> = [
  { file: 'core.ts', args: ['--expose-gc', '--import', 'tsx'] },
  { file: 'claims.ts', args: ['--import', 'tsx'] },
  { file: 'cli-startup.mjs' },
  { file: 'sandbox-startup.mjs' },
  { file: 'policy-audit.mjs' },
  { file: 'audit.ts', args: ['--import', 'tsx'] },
  { file: 'audit-export.ts', args: ['--import', 'tsx'] },
  { file: 'gateways.ts', args: ['--import', 'tsx'] },
  { file: 'catalog.ts', args: ['--import', 'tsx'] },
  { file: 'scale.ts', args: ['--import', 'tsx'] },
  { file: 'agent.ts', args: ['--import', 'tsx'] },
  { file: 'renderer-size.ts', args: ['--import', 'tsx'] },
];

let failed = 0;
for (const bench of benches) {
  const result = spawnSync(process.execPath, [...(bench.args ?? []), join(here, bench.file)], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 15 * 60_000 });
  if (result.status !== 0) {
    failed += 1;
    console.log(JSON.stringify({ name: bench.file, error: `exited with ${result.status ?? result.signal}` }));
  }
}
process.exitCode = failed ? 1 : 0;
