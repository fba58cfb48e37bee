// A transaction's records folded into as few documents as fit (src/patterns/records.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { BSON, ObjectId } from "mongodb";
import type { PlannedWrite, Write } from "../../../src/patterns/plan.js";
import { foldRecords, MAX_RECORDS_BYTES, RECORDED_AT, RECORDS } from "../../../src/patterns/records.js";

const insert = (collection: string, _id: number): PlannedWrite => ({
  op: "insertOne",
  collection,
  document: { _id },
});
const record = (collection: string, copied: unknown): PlannedWrite => ({
  op: "record",
  collection,
  record: { copied },
});

/** The records each folded document of `collection` holds, checked to be a stamped upsert of a fresh id. */
function recordsWritten(writes: Write[], collection: string): unknown[][] {
  return writes
    .filter((write) => write.collection === collection)
    .map((write) => {
      assert.ok(write.op === "updateOne" && write.upsert);
      assert.ok(write.filter._id instanceof ObjectId);
      assert.deepEqual(write.update.$currentDate, { [RECORDED_AT]: true });
      return (write.update.$set as Record<string, { copied: unknown }[]>)[RECORDS]!.map((r) => r.copied);
    });
}

void test("the records of several plans become one document per collection, after the other writes", () => {
  const writes = foldRecords([
    insert("reviews", 1),
    record("state", "c1"),
    insert("reviews", 2),
    record("other-state", "d1"),
    record("state", "c2"),
  ]);
  assert.deepEqual(
    writes.slice(0, 2),
    [insert("reviews", 1), insert("reviews", 2)],
    "the documents' writes come first, in their order",
  );
  assert.deepEqual(recordsWritten(writes, "state"), [["c1", "c2"]]);
  assert.deepEqual(recordsWritten(writes, "other-state"), [["d1"]]);
  assert.equal(writes.length, 4);
});

void test("writes without records are left as they are", () => {
  const writes = [insert("reviews", 1), insert("reviews", 2)];
  assert.deepEqual(foldRecords(writes), writes);
});

void test("records past the size a document of records may hold go to the next one, none split or lost", () => {
  const large = "x".repeat(MAX_RECORDS_BYTES / 3);
  const ids = Array.from({ length: 7 }, (_, i) => `${i}${large}`);
  const folded = recordsWritten(foldRecords(ids.map((id) => record("state", id))), "state");
  assert.deepEqual(folded.flat(), ids, "every record once, in order");
  assert.equal(folded.length, 4, "two records of a third each fit beside each other, a third does not");
  for (const records of folded) {
    assert.ok(
      BSON.calculateObjectSize({ records }) <= MAX_RECORDS_BYTES + 1024,
      "each document within the cap",
    );
  }
});

void test("a record larger than the cap gets a document of its own", () => {
  const huge = "y".repeat(MAX_RECORDS_BYTES + 1);
  const folded = recordsWritten(
    foldRecords([record("state", "a"), record("state", huge), record("state", "b")]),
    "state",
  );
  assert.deepEqual(folded, [["a"], [huge], ["b"]]);
});
