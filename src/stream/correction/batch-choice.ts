// Which waiting targets share the next transaction. Each group of targets that plan together
// (one rule and role: planMany) costs a transaction its own reads, so a batch of one group
// reads once where a batch of three groups reads three times: in a backlog of every pattern,
// batches taken in arrival order held every rule and sent about seven reads for 64
// corrections, where a batch of one rule sends one to three. So a batch takes the first
// waiting target's group (up to the bound), then every other group that fits whole, in the
// order of its first waiting target: a backlog is corrected in batches of one group, a short
// queue (live traffic) still in one transaction. The first waiting target always goes, so
// no group waits behind another for long; targets share a batch only when independent, so
// the order among them does not matter.

/** The next batch of at most `max` of `waiting` (max ≥ 1), and what stays, each in waiting's order. */
export function chooseBatch<T>(
  waiting: readonly T[],
  max: number,
  groupOf: (item: T) => string,
): { batch: T[]; rest: T[] } {
  const keys = waiting.map(groupOf);
  const chosen = new Set<string>();
  let room = max;
  for (const [group, size] of sizesInOrder(keys)) {
    const first = chosen.size === 0;
    if (!first && size > room) continue;
    chosen.add(group);
    room -= Math.min(size, room);
    if (room === 0) break;
  }
  const batch: T[] = [];
  const rest: T[] = [];
  waiting.forEach((item, i) => {
    if (batch.length < max && chosen.has(keys[i]!)) batch.push(item);
    else rest.push(item);
  });
  return { batch, rest };
}

/** How many of `keys` each group has, in the order of its first. */
function sizesInOrder(keys: readonly string[]): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const key of keys) sizes.set(key, (sizes.get(key) ?? 0) + 1);
  return sizes;
}
