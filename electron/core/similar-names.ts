/**
 * "Did you mean …?" for a mistyped name: the names closest to it by edit
 * distance (a letter missing, added, changed or two swapped), or that differ
 * only in case and separators. Pure.
 */

/** Most suggestions given at once. */
const MAX_SUGGESTIONS = 3;

/** The names in `candidates` close enough to `wanted` to be what was meant, closest first. */
export function similarNames(wanted: string, candidates: readonly string[]): string[] {
  const plain = (name: string) => name.toLowerCase().replace(/[-_.\s]/g, '');
  const target = plain(wanted);
  if (!target) return [];
  // About one mistake in every four letters, at least one, at most three.
  const allowed = Math.min(3, Math.max(1, Math.floor(target.length / 4)));
  return candidates
    .map((name) => ({ name, distance: plain(name) === target ? 0 : editDistance(target, plain(name), allowed) }))
    .filter((candidate) => candidate.distance <= allowed && candidate.name !== wanted)
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, MAX_SUGGESTIONS)
    .map((candidate) => candidate.name);
}

/** Optimal string alignment distance (adjacent swaps count once), stopping past `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}
