import { test } from "node:test";
import assert from "node:assert/strict";
import { BSON } from "mongodb";
import type { Document } from "mongodb";
import { planOutlierMove, planOverflowChunkSplit } from "../../../../src/patterns/outlier/planner.js";
import { lastChunkOf, MAX_CHUNK_BYTES } from "../../../../src/patterns/outlier/overflow-chunks.js";
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
  assert.deepEqual(planOverflowChunkSplit(rule, { chunk, lastChunk: lastChunkOf(rule, chunk) }), {
    outcome: "none",
  });
});

void test("an overfilled chunk without a reference to its source is skipped naming the field", () => {
  const chunk = { _id: "a", seq: 0, customers_purchased_extra: users(0, 11) };
  const plan = planOverflowChunkSplit(rule, { chunk, lastChunk: lastChunkOf(rule, chunk) });
  assert.match(plan.outcome === "skip" ? plan.reason : "", /book_id is missing/);
});

void test("the chunk's trim is guarded by the size it was planned from", () => {
  const chunk = { _id: "a", book_id: 1, seq: 0, customers_purchased_extra: users(0, 11) };
  const plan = planOverflowChunkSplit(rule, { chunk, lastChunk: lastChunkOf(rule, chunk) });
  assert.ok(plan.outcome === "writes");
  assert.deepEqual(plan.writes[0]?.op === "updateOne" && plan.writes[0].filter, {
    _id: "a",
    customers_purchased_extra: { $size: 11 },
  });
});

void test("extras fill new chunks up to MAX_CHUNK_BYTES, and one larger entry gets a chunk of its own", () => {
  const large = (i: number, bytes: number) => `${i}`.padEnd(bytes, "x");
  const extras = [...Array.from({ length: 500 }, (_, i) => large(i, 40_000)), large(500, 9_000_000), "last"];
  const plan = planOutlierMove(outlierRule, {
    source: { _id: 1, customers_purchased: [...users(0, 50), ...extras] },
    lastChunk: null,
  });
  assert.ok(plan.outcome === "writes");
  const chunks = plan.writes.flatMap((write) => (write.op === "insertOne" ? [write.document] : []));
  const sizes = chunks.map((chunk) => BSON.calculateObjectSize(chunk));
  assert.deepEqual(
    chunks.flatMap((chunk) => chunk.customers_purchased_extra as string[]),
    extras,
  );
  const held = chunks.map((chunk) => (chunk.customers_purchased_extra as string[]).length);
  assert.deepEqual(held.slice(-2), [1, 1], "the 9 MB entry alone, and the next after it");
  sizes.slice(0, -2).forEach((size) => assert.ok(size <= MAX_CHUNK_BYTES, `a chunk of ${size} bytes`));
  assert.ok(sizes[0]! > MAX_CHUNK_BYTES - 50_000, "a full chunk is filled to the bound");
});

void test("a last chunk full by bytes takes no more extras, though it holds fewer than chunkSize", () => {
  const chunk = {
    _id: "a",
    book_id: 1,
    seq: 0,
    customers_purchased_extra: ["x".padEnd(MAX_CHUNK_BYTES - 20, "x")],
  };
  const plan = planOutlierMove(outlierRule, {
    source: { _id: 1, customers_purchased: users(0, 51) },
    lastChunk: lastChunkOf(outlierRule, chunk),
  });
  assert.ok(plan.outcome === "writes");
  assert.deepEqual(
    plan.writes.map((write) => write.op),
    ["updateOne", "insertOne"],
  );
});

void test("an overfilled chunk that shares the last seq with another sends its excess to a new chunk after both", () => {
  // Whichever of the two the index returns last.
  for (const overfilledFirst of [true, false]) {
    const db = new MemoryDb();
    const overfilled = { _id: "full", book_id: 1, seq: 0, customers_purchased_extra: users(0, 12) };
    const other = { _id: "other", book_id: 1, seq: 0, customers_purchased_extra: ["app"] };
    for (const chunk of overfilledFirst ? [overfilled, other] : [other, overfilled])
      db.insertOne("extra_sales", chunk);
    split(db, "full");
    const entriesOf = (id: unknown) =>
      chunksInOrder(db, rule, 1).find((chunk) => JSON.stringify(chunk._id) === JSON.stringify(id))
        ?.customers_purchased_extra;
    assert.deepEqual(entriesOf("full"), users(0, 10));
    assert.deepEqual(entriesOf("other"), ["app"]);
    assert.deepEqual(entriesOf({ book_id: 1, seq: 1 }), users(10, 12));
  }
});
