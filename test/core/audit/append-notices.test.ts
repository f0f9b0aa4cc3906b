import { describe, expect, it } from 'vitest';
import { coalescedAppendNotices } from '../../../electron/core/audit/append-notices';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('"the log grew", once per turn', () => {
  it('the entries of one turn make one notice with the newest number; the next turn makes another', async () => {
    const told: number[] = [];
    const note = coalescedAppendNotices((seq) => told.push(seq));
    note(5);
    note(7);
    note(6);
    expect(told).toEqual([]);
    await turn();
    expect(told).toEqual([7]);
    note(8);
    await turn();
    expect(told).toEqual([7, 8]);
    await turn();
    expect(told).toEqual([7, 8]);
  });
});
