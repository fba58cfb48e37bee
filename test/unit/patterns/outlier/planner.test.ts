import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { planOutlierMove } from "../../../../src/patterns/outlier/planner.js";
import { lastChunkOf } from "../../../../src/patterns/outlier/overflow-chunks.js";
import type { Plan } from "../../../../src/patterns/plan.js";
import { MemoryDb, StaleWriteError } from "../support/memory-db.js";
import { chunksInOrder, readOutlierState } from "../support/readers.js";
import { outlierRule, users } from "../support/rules.js";

const rule = outlierRule;

function bookDb(purchasers: string[], extra: Document = {}): MemoryDb {
  const db = new MemoryDb();
  db.insertOne("sales", { _id: 1, title: "The Wooden Amulet", customers_purchased: purchasers, ...extra });
  return db;
}

function correct(db: MemoryDb, chunkRule = rule): Plan {
  const plan = planOutlierMove(chunkRule, readOutlierState(db, chunkRule, 1));
  if (plan.outcome === "writes") db.apply(plan.writes);
  return plan;
}

function extras(db: MemoryDb): unknown[] {
  return chunksInOrder(db, rule, 1).flatMap((chunk) => chunk.customers_purchased_extra as unknown[]);
}

function book(db: MemoryDb): Document {
  return db.find("sales")[0] as Document;
}

void test("a book bought by user00..user999 keeps user00..user49 and moves user50..user999 in order", () => {
  const db = bookDb(users(0, 1000));
  const plan = correct(db);
  assert.equal(plan.outcome === "writes" && plan.kind, "moved");
  assert.deepEqual(book(db).customers_purchased, users(0, 50));
  assert.equal(book(db).has_extras, true);
  assert.deepEqual(extras(db), users(50, 1000));
});

void test("the moved extras fill chunks of chunkSize numbered from 0", () => {
  const small = { ...rule, chunkSize: 300 };
  const db = bookDb(users(0, 1000));
  correct(db, small);
  const chunks = chunksInOrder(db, small, 1);
  assert.deepEqual(
    chunks.map((chunk) => [chunk.seq, (chunk.customers_purchased_extra as unknown[]).length]),
    [
      [0, 300],
      [1, 300],
      [2, 300],
      [3, 50],
    ],
  );
  assert.deepEqual(chunks[1]?._id, { book_id: 1, seq: 1 });
});

void test("planning a corrected book again is a no-op", () => {
  const db = bookDb(users(0, 1000));
  correct(db);
  assert.deepEqual(correct(db), { outcome: "none" });
});

void test("a book with exactly the threshold of purchasers is left alone", () => {
  assert.deepEqual(correct(bookDb(users(0, 50))), { outcome: "none" });
});

void test("a naive push after has_extras moves the excess after the existing extras", () => {
  const small = { ...rule, chunkSize: 40 };
  const db = bookDb(users(0, 80));
  correct(db, small);
  db.updateOne("sales", { _id: 1 }, { $push: { customers_purchased: { $each: users(80, 100) } } });
  const plan = correct(db, small);
  assert.equal(plan.outcome === "writes" && plan.elementsMoved, 20);
  assert.deepEqual(book(db).customers_purchased, users(0, 50));
  assert.deepEqual(extras(db), users(50, 100));
  assert.deepEqual(
    chunksInOrder(db, small, 1).map((chunk) => (chunk.customers_purchased_extra as unknown[]).length),
    [40, 10],
  );
});

void test("the source write is guarded by the array size it was planned from, and sends no entries back", () => {
  const plan = planOutlierMove(rule, {
    source: { _id: 1, customers_purchased: users(0, 60) },
    lastChunk: null,
  });
  assert.equal(plan.outcome, "writes");
  if (plan.outcome !== "writes") return;
  assert.deepEqual(plan.writes[0], {
    op: "updateOne",
    collection: "sales",
    filter: { _id: 1, customers_purchased: { $size: 60 } },
    update: {
      $push: { customers_purchased: { $each: [], $slice: 50 } },
      $set: { has_extras: true },
    },
  });
});

void test("a plan made before the application pushed again matches nothing and changes nothing", () => {
  const db = bookDb(users(0, 60));
  const plan = planOutlierMove(rule, readOutlierState(db, rule, 1));
  db.updateOne("sales", { _id: 1 }, { $push: { customers_purchased: { $each: ["late"] } } });
  assert.ok(plan.outcome === "writes");
  assert.throws(() => db.apply(plan.writes), StaleWriteError);
  assert.equal((book(db).customers_purchased as unknown[]).length, 61);
  assert.deepEqual(extras(db), []);
});

void test("a chunk the seed's upsert created without seq is adopted as chunk 0, after what the book still held past 50", () => {
  const db = bookDb(users(0, 55), { has_extras: true });
  db.insertOne("extra_sales", { book_id: 1, customers_purchased_extra: ["app1", "app2"] });
  correct(db);
  const chunks = chunksInOrder(db, rule, 1);
  assert.equal(chunks.length, 1);
  assert.equal(chunks[0]?.seq, 0);
  assert.deepEqual(extras(db), [...users(50, 55), "app1", "app2"]);
});

void test("what no longer fits in an adopted chunk moves on to new chunks, in order", () => {
  const smallChunks = { ...rule, chunkSize: 3 };
  const db = bookDb(users(0, 55), { has_extras: true });
  db.insertOne("extra_sales", { book_id: 1, customers_purchased_extra: ["app1", "app2"] });
  correct(db, smallChunks);
  const chunks = chunksInOrder(db, smallChunks, 1);
  assert.deepEqual(
    chunks.map((chunk) => [chunk.seq, chunk.customers_purchased_extra]),
    [
      [0, ["user50", "user51", "user52"]],
      [1, ["user53", "user54", "app1"]],
      [2, ["app2"]],
    ],
  );
});

void test("a purchasers field that is not an array is skipped with a reason naming the field", () => {
  const plan = planOutlierMove(rule, { source: { _id: 1, customers_purchased: "user00" }, lastChunk: null });
  assert.equal(plan.outcome, "skip");
  assert.match(plan.outcome === "skip" ? plan.reason : "", /customers_purchased is a string/);
});

void test("a last chunk whose seq is not an integer is skipped with a reason naming seq", () => {
  const lastChunk = { _id: "c", book_id: 1, seq: "two", customers_purchased_extra: [] };
  const plan = planOutlierMove(rule, {
    source: { _id: 1, customers_purchased: users(0, 60) },
    lastChunk: lastChunkOf(rule, lastChunk),
  });
  assert.equal(plan.outcome, "skip");
  assert.match(plan.outcome === "skip" ? plan.reason : "", /extra_sales "c": seq is a string/);
});

void test("a last chunk whose extras field is not an array is skipped with a reason naming it", () => {
  const lastChunk = { _id: "c", book_id: 1, seq: 0, customers_purchased_extra: 7 };
  const plan = planOutlierMove(rule, {
    source: { _id: 1, customers_purchased: users(0, 60) },
    lastChunk: lastChunkOf(rule, lastChunk),
  });
  assert.match(plan.outcome === "skip" ? plan.reason : "", /customers_purchased_extra is a number/);
});

void test("a book without a purchasers field needs nothing", () => {
  assert.deepEqual(planOutlierMove(rule, { source: { _id: 1 }, lastChunk: null }), { outcome: "none" });
});

void test("replaying a new chunk's insert fails on its _id instead of duplicating extras", () => {
  const db = bookDb(users(0, 60));
  const plan = planOutlierMove(rule, readOutlierState(db, rule, 1));
  assert.ok(plan.outcome === "writes");
  const insert = plan.writes.find((write) => write.op === "insertOne");
  assert.ok(insert);
  db.apply([insert]);
  assert.throws(() => db.apply([insert]), /duplicate key/);
});
