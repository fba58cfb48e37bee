import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { chooseBatch } from "../../../src/stream/correction/batch-choice.js";

/** Items named by group and arrival: "a0", "b1", ...; the group is the letter. */
const groupOf = (item: string) => item[0]!;
const items = (groups: string) => [...groups].map((group, i) => `${group}${i}`);

void test("a backlog of several groups is taken one group at a time, the first waiting's first", () => {
  const waiting = items("abcabcabcabc");
  const { batch, rest } = chooseBatch(waiting, 3, groupOf);
  assert.deepEqual(batch, ["a0", "a3", "a6"]);
  assert.deepEqual(rest, ["b1", "c2", "b4", "c5", "b7", "c8", "a9", "b10", "c11"]);
});

void test("groups that fit whole share the batch; a queue shorter than the bound goes in one", () => {
  assert.deepEqual(chooseBatch(items("abcab"), 8, groupOf), { batch: items("abcab"), rest: [] });
  // b does not fit beside a's three, c does.
  assert.deepEqual(chooseBatch(items("aabbbca"), 5, groupOf), {
    batch: ["a0", "a1", "c5", "a6"],
    rest: ["b2", "b3", "b4"],
  });
});

void test("the first waiting target's group is split at the bound rather than left out", () => {
  assert.deepEqual(chooseBatch(items("aaaab"), 3, groupOf), {
    batch: ["a0", "a1", "a2"],
    rest: ["a3", "b4"],
  });
});

void test("every target is either in the batch or left waiting, each once, in waiting's order", () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom("a", "b", "c", "d")),
      fc.integer({ min: 1, max: 10 }),
      (groups, max) => {
        const waiting = items(groups.join(""));
        const { batch, rest } = chooseBatch(waiting, max, groupOf);
        const inOrder = (list: string[]) => waiting.filter((item) => list.includes(item));
        assert.deepEqual([...batch, ...rest].sort(), [...waiting].sort());
        assert.deepEqual(batch, inOrder(batch));
        assert.deepEqual(rest, inOrder(rest));
        assert.ok(batch.length <= max);
        if (waiting.length > 0)
          assert.equal(batch[0], waiting[0], "the first waiting target is always taken");
        // A group is split only when it is the first's and larger than the bound.
        for (const group of new Set(batch.map(groupOf)))
          if (rest.some((item) => groupOf(item) === group)) {
            assert.equal(group, groupOf(waiting[0]!));
            assert.equal(batch.length, max);
          }
        // The batch is full, or no group left waiting would have fitted in it whole.
        const room = max - batch.length;
        for (const group of new Set(rest.map(groupOf)))
          assert.ok(rest.filter((item) => groupOf(item) === group).length > room, `group ${group} fits`);
      },
    ),
  );
});
