// The assignment spreads partitions evenly over the live replicas and moves only what it must.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  assignPartitions,
  partitionsOwnedBy,
  type Owners,
} from "../../../../src/stream/partitions/assignment.js";

const memberName: fc.Arbitrary<string> = fc.constantFrom("a", "b", "c", "d", "e", "f", "g");

const world = fc.record({
  partitions: fc.integer({ min: 1, max: 64 }),
  members: fc.uniqueArray(memberName, { minLength: 1, maxLength: 7 }),
  owners: fc.array(fc.option(memberName, { nil: undefined }), { maxLength: 64 }),
});

const ownersFrom = (partitions: number, owners: (string | undefined)[]): Owners =>
  new Map(
    owners.slice(0, partitions).flatMap((owner, partition) => (owner ? [[partition, owner] as const] : [])),
  );

/** Partitions an assignment must move: those of no live member, and each member's over its share. */
function forcedMoves(partitions: number, members: string[], current: Owners): number {
  const ceil = Math.ceil(partitions / members.length);
  const orphaned = [...Array(partitions).keys()].filter(
    (p) => !members.includes(current.get(p) ?? ""),
  ).length;
  const counts = members.map((member) => partitionsOwnedBy(current, member).length).sort((x, y) => y - x);
  const extra = partitions % members.length;
  const floor = Math.floor(partitions / members.length);
  const over = counts.reduce(
    (sum, count, rank) => sum + Math.max(0, count - (rank < extra ? ceil : floor)),
    0,
  );
  return orphaned + over;
}

void test("every partition has exactly one live owner, and counts differ by at most one", () => {
  fc.assert(
    fc.property(world, ({ partitions, members, owners }) => {
      const assigned = assignPartitions(partitions, members, ownersFrom(partitions, owners));
      assert.deepEqual(
        [...assigned.keys()].sort((x, y) => x - y),
        [...Array(partitions).keys()],
      );
      assert.ok([...assigned.values()].every((owner) => members.includes(owner)));
      const counts = members.map((member) => partitionsOwnedBy(assigned, member).length);
      assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, counts.join(","));
    }),
  );
});

void test("only the partitions that must move do: orphaned ones and those over a share", () => {
  fc.assert(
    fc.property(world, ({ partitions, members, owners }) => {
      const current = ownersFrom(partitions, owners);
      const assigned = assignPartitions(partitions, members, current);
      const moved = [...assigned].filter(([partition, owner]) => current.get(partition) !== owner).length;
      assert.equal(moved, forcedMoves(partitions, members, current));
    }),
  );
});

void test("an assignment is stable: computed again from itself, nothing moves", () => {
  fc.assert(
    fc.property(world, ({ partitions, members, owners }) => {
      const assigned = assignPartitions(partitions, members, ownersFrom(partitions, owners));
      assert.deepEqual(assignPartitions(partitions, [...members].reverse(), assigned), assigned);
    }),
  );
});

void test("a replica joining takes its share from the others, nothing else moves", () => {
  const three = assignPartitions(16, ["a", "b", "c"], new Map());
  assert.deepEqual(
    ["a", "b", "c"].map((member) => partitionsOwnedBy(three, member).length),
    [6, 5, 5],
  );
  const four = assignPartitions(16, ["a", "b", "c", "d"], three);
  assert.equal(partitionsOwnedBy(four, "d").length, 4);
  assert.equal([...four].filter(([partition, owner]) => three.get(partition) !== owner).length, 4);
  const leaving = assignPartitions(16, ["a", "c", "d"], four);
  assert.equal([...leaving].filter(([partition, owner]) => four.get(partition) !== owner).length, 4);
});

void test("one replica owns every partition", () => {
  assert.deepEqual(partitionsOwnedBy(assignPartitions(16, ["only"], new Map([[3, "gone"]])), "only"), [
    ...Array(16).keys(),
  ]);
  assert.equal(assignPartitions(16, [], new Map()).size, 0);
});
