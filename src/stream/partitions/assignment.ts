// Which live replica owns which partition: spread evenly (counts differ by at most one) and
// moving as few partitions as possible from their current owners, as a consumer group's
// sticky assignor does. Pure and deterministic, so that every replica computes the same
// assignment from the same members and owners. docs/semantics.md, "Partitions".

/** Partition number to owner; a partition absent from the map has none. */
export type Owners = ReadonlyMap<number, string>;

/**
 * The assignment of `partitions` partitions over `members` (the live replicas), from the
 * `current` owners. A member keeps what it owns up to its share; partitions of departed
 * members, unowned ones and those over a share go, lowest first, to the members under theirs.
 */
export function assignPartitions(partitions: number, members: readonly string[], current: Owners): Owners {
  const live = [...new Set(members)].sort();
  if (live.length === 0) return new Map();
  const kept = keptPartitions(partitions, live, current);
  const shares = sharesOf(partitions, live, kept);
  const assigned = new Map<number, string>();
  for (const member of live)
    for (const partition of kept.get(member)!.slice(0, shares.get(member))) assigned.set(partition, member);
  let next = 0;
  for (const member of live) {
    let missing = shares.get(member)! - Math.min(kept.get(member)!.length, shares.get(member)!);
    for (; missing > 0; next++) {
      if (assigned.has(next)) continue;
      assigned.set(next, member);
      missing--;
    }
  }
  return assigned;
}

/** Each live member's current partitions, lowest first. */
function keptPartitions(partitions: number, live: readonly string[], current: Owners): Map<string, number[]> {
  const kept = new Map(live.map((member) => [member, [] as number[]]));
  for (let partition = 0; partition < partitions; partition++) {
    const owner = current.get(partition);
    if (owner !== undefined) kept.get(owner)?.push(partition);
  }
  return kept;
}

/**
 * How many partitions each member gets: all `floor(P/N)`, and one more for the `P mod N` that
 * own the most now (then by name), so that the extra ones move least.
 */
function sharesOf(
  partitions: number,
  live: readonly string[],
  kept: Map<string, number[]>,
): Map<string, number> {
  const base = Math.floor(partitions / live.length);
  const extra = partitions % live.length;
  const byHoldings = [...live].sort((a, b) => kept.get(b)!.length - kept.get(a)!.length || (a < b ? -1 : 1));
  return new Map(byHoldings.map((member, rank) => [member, base + (rank < extra ? 1 : 0)]));
}

/** The partitions `member` owns in an assignment, ascending. */
export function partitionsOwnedBy(owners: Owners, member: string): number[] {
  return [...owners]
    .flatMap(([partition, owner]) => (owner === member ? [partition] : []))
    .sort((a, b) => a - b);
}
