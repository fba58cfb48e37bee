// A replica's keys are those of the partitions it owns; owning them all, every key.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { CorrectionTarget } from "../../../src/patterns/driver.js";
import { EVERY_KEY, keysOfPartitions } from "../../../src/stream/key-ownership.js";
import { partitionOfTarget } from "../../../src/stream/partitions/target-partition.js";
import { outlierRule } from "../patterns/support/rules.js";

const book = (id: number): CorrectionTarget => ({
  rule: outlierRule,
  role: "source",
  collection: "sales",
  id,
});

void test("a replica owns the keys of its partitions, and no other", () => {
  const books = Array.from({ length: 40 }, (_, id) => book(id));
  const owned = [1, 3];
  const keys = keysOfPartitions(owned, 4);
  for (const target of books)
    assert.equal(
      keys.owns(target),
      owned.includes(partitionOfTarget(target, 4)),
      `book ${String(target.id)}`,
    );
  assert.ok(books.some((target) => keys.owns(target)) && books.some((target) => !keys.owns(target)));
  assert.equal(keys.description, "partitions 1, 3");
});

void test("owning every partition is owning every key; owning none, no key", () => {
  assert.equal(keysOfPartitions([3, 2, 1, 0], 4), EVERY_KEY);
  const none = keysOfPartitions([], 4);
  assert.equal(none.owns(book(1)), false);
  assert.equal(none.description, "no key");
});
