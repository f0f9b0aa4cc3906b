// Progress is relayed in full: a progress notification a server sends right before its result,
// in the same chunk, is not lost to the order in which the SDK handles notifications and responses.
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureSpec, supervised } from './support/fixtures';
import { makeSupervisor } from './support/harness';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('progress right before the result', () => {
  it('every progress notification reaches the caller before the call resolves', async () => {
    const { supervisor } = makeSupervisor({ b: supervised('b', fixtureSpec('progress-burst.mjs')) });
    cleanups.push(() => supervisor.stopAll());
    await supervisor.start('b');
    for (let round = 0; round < 5; round += 1) {
      const seen: number[] = [];
      const result = await supervisor.callTool('b', 'burst', {}, { onProgress: (p) => void seen.push(p.progress) });
      expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
      expect(seen).toEqual([1, 2, 3, 4, 5]);
    }
  });
});
