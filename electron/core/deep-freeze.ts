/**
 * Freezes a value and everything reachable in it (objects and arrays), in
 * place, and returns it: data handed to many readers (the store's snapshot,
 * a reused decision, an open request) that none of them may change.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value as Record<string, unknown>)) deepFreeze(member);
  }
  return value;
}
