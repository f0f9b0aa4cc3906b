/**
 * Settings writes cut short (issue 16.2): a child process saves rules in a
 * loop and is killed with SIGKILL at a random point, again and again; after
 * each kill the store must load, hold every rule the child had reported
 * saved, and never have been reset (a corrupt file would be kept aside with
 * a notice — counted here, and expected to be zero: saves are atomic).
 * Used by the short test in `npm test` and by `npm run soak`.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { AirlockStore } from '../../../../electron/core/store/store';

const REPO = resolve(import.meta.dirname, '../../../..');
const WORKER = resolve(import.meta.dirname, '../fixtures/save-loop.ts');

export interface KillReport {
  kills: number;
  /** Saves the children reported done. */
  acknowledged: number;
  /** Of those, missing after a restart. */
  lost: number;
  /** Restarts that found a corrupt file (kept aside, with a notice). */
  corrupt: number;
  /** Restarts where the store would not open at all. */
  unopenable: number;
  /** Temporary files of interrupted saves left in the folder at the end. */
  leftoverTemps: number;
}

/** Kills a saving child `kills` times in `dir`; `random` in [0, 1). */
export async function killDuringSaves(dir: string, kills: number, random: () => number = Math.random): Promise<KillReport> {
  const report: KillReport = { kills: 0, acknowledged: 0, lost: 0, corrupt: 0, unopenable: 0, leftoverTemps: 0 };
  let next = 0;
  const saved = new Set<string>();
  const lost = new Set<string>();
  for (let k = 0; k < kills; k++) {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, dir, String(next)], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    const waitFor = 1 + Math.floor(random() * 6);
    await new Promise<void>((done, fail) => {
      let out = '';
      let count = 0;
      let killing = false;
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const lines = out.split('\n');
        out = lines.pop()!;
        for (const line of lines) {
          const m = /^saved (\d+)$/.exec(line);
          if (m) {
            saved.add(`tool_${m[1]}`);
            next = Number(m[1]) + 1;
            count += 1;
          }
        }
        if (count >= waitFor && !killing) {
          killing = true;
          // A random moment within the next few saves.
          setTimeout(() => child.kill('SIGKILL'), random() * 4);
        }
      });
      child.once('exit', (code, signal) => {
        if (signal === 'SIGKILL') done();
        else fail(new Error(`the saving child ended by itself (${code ?? signal}): ${child.stderr?.read()?.toString() ?? ''}`));
      });
    });
    report.kills += 1;
    let store: AirlockStore;
    try {
      store = new AirlockStore(dir);
    } catch {
      report.unopenable += 1;
      continue;
    }
    if (store.notices.length) report.corrupt += 1;
    const present = new Set(store.read().rules.map((rule) => rule.tool));
    for (const tool of saved) if (!present.has(tool)) lost.add(tool);
    // A save that finished but was not yet reported is fine; continue after the highest one present.
    next = Math.max(next, ...[...present].map((tool) => Number(tool.slice(5)) + 1));
  }
  report.acknowledged = saved.size;
  report.lost = lost.size;
  report.leftoverTemps = readdirSync(dir).filter((name) => name.includes('.tmp-')).length;
  return report;
}
