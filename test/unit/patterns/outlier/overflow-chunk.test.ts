import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { planOverflowChunkSplit } from "../../../../src/patterns/outlier/planner.js";
import type { Plan } from "../../../../src/patterns/plan.js";
import { MemoryDb } from "../support/memory-db.js";
import { chunksInOrder, readOverflowChunkState } from "../support/readers.js";
import { outlierRule, users } from "../support/rules.js";

const rule = { ...outlierRule, chunkSize: 10 };

function split(db: MemoryDb, chunkId: unknown): Plan {
  const [chunk] = db.find("extra_sales", (doc) => JSON.stringify(doc._id) === JSON.stringify(chunkId));
  const plan = planOverflowChunkSplit(rule, readOverflowChunkState(db, rule, chunk as Document));
  if (plan.outcome === "writes") db.apply(plan.writes);
  return plan;
}

function layout(db: MemoryDb): Array<[unknown, unknown[]]> {
  return chunksInOrder(db, rule, 1).map((chunk) => [chunk.seq, chunk.customers_purchased_extra as unknown[]]);
}

void test("an overfilled first chunk keeps chunkSize entries and its excess goes after the last chunk", () => {
  const db = new MemoryDb();
  db.insertOne("extra_sales", { _id: "a", book_id: 1, seq: 0, customers_purchased_extra: users(0, 13) });
  db.insertOne("extra_sales", { _id: "b", book_id: 1, seq: 1, customers_purchased_extra: users(20, 28) });
  split(db, "a");
  assert.deepEqual(layout(db), [
    [0, users(0, 10)],
    [1, [...users(20, 28), ...users(10, 12)]],
    [2, users(12, 13)],
  ]);
});

void test("an overfilled last chunk continues in new chunks numbered after it", () => {
  const db = new MemoryDb();
  db.insertOne("extra_sales", { _id: "a", book_id: 1, seq: 4, customers_purchased_extra: users(0, 25) });
  const plan = split(db, "a");
  assert.equal(plan.outcome === "writes" && plan.kind, "split");
  assert.deepEqual(layout(db), [
    [4, users(0, 10)],
    [5, users(10, 20)],
    [6, users(20, 25)],
  ]);
});

void test("an overfilled chunk without seq that is the only one becomes chunk 0", () => {
  const db = new MemoryDb();
  db.insertOne("extra_sales", { _id: "a", book_id: 1, customers_purchased_extra: users(0, 12) });
  split(db, "a");
  assert.deepEqual(layout(db), [
    [0, users(0, 10)],
    [1, users(10, 12)],
  ]);
});

void test("splitting a chunk again after its split is a no-op", () => {
  const db = new MemoryDb();
  db.insertOne("extra_sales", { _id: "a", book_id: 1, seq: 0, customers_purchased_extra: users(0, 35) });
  split(db, "a");
  for (const chunk of chunksInOrder(db, rule, 1)) assert.deepEqual(split(db, chunk._id), { outcome: "none" });
});

void test("a chunk within chunkSize needs nothing", () => {
  const chunk = { _id: "a", book_id: 1, seq: 0, customers_purchased_extra: users(0, 10) };
  assert.deepEqual(planOverflowChunkSplit(rule, { chunk, lastChunk: chunk }), { outcome: "none" });
});

void test("an overfilled chunk without a reference to its source is skipped naming the field", () => {
  const chunk = { _id: "a", seq: 0, customers_purchased_extra: users(0, 11) };
  const plan = planOverflowChunkSplit(rule, { chunk, lastChunk: chunk });
  assert.match(plan.outcome === "skip" ? plan.reason : "", /book_id is missing/);
});

void test("the chunk's trim is guarded by the size it was planned from", () => {
  const chunk = { _id: "a", book_id: 1, seq: 0, customers_purchased_extra: users(0, 11) };
  const plan = planOverflowChunkSplit(rule, { chunk, lastChunk: chunk });
  assert.ok(plan.outcome === "writes");
  assert.deepEqual(plan.writes[0]?.op === "updateOne" && plan.writes[0].filter, {
    _id: "a",
    customers_purchased_extra: { $size: 11 },
  });
});
