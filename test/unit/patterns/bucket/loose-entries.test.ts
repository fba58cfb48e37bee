import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import {
  foldsLooseEntries,
  isLooseEntry,
  planLooseEntryFold,
  type LooseEntryState,
} from "../../../../src/patterns/bucket/loose-entries.js";
import { bucketRuleSchema, type BucketRule } from "../../../../src/patterns/bucket/rule.js";
import { MemoryDb } from "../support/memory-db.js";
import { bucketRule as rule } from "../support/rules.js";

// The seed's first trade, stored the way its schema before buckets stores it.
const SEED_TRADE = {
  ticker: "MDB",
  customerId: 123,
  type: "buy",
  quantity: 419,
  date: new Date("2023-10-26T15:47:03.434Z"),
};

// What open-bucket-reader.ts reads: the key's loose documents oldest first, its buckets' ids
// and its newest bucket whose count is under the threshold.
function stateOf(db: MemoryDb): LooseEntryState {
  const entries = db
    .find("trades", (doc) => isLooseEntry(rule, doc))
    .sort((a, b) => (a.date as Date).getTime() - (b.date as Date).getTime());
  const buckets = db.find("trades", (doc) => typeof doc._id === "string" && doc._id.startsWith("123_"));
  const open = buckets
    .filter(
      (doc) => typeof doc.count === "number" && doc.count < rule.threshold && Array.isArray(doc.history),
    )
    .sort((a, b) => (String(a._id) < String(b._id) ? 1 : -1));
  return {
    key: 123,
    entries,
    openBucket: open[0] ?? null,
    takenIds: new Set(buckets.map((doc) => String(doc._id))),
  };
}

function fold(db: MemoryDb) {
  const plan = planLooseEntryFold(rule, stateOf(db));
  if (plan.outcome === "writes") db.apply(plan.writes);
  return plan;
}

void test("the seed's rule folds loose entries and a rule of another collection does not unless asked", () => {
  const other = bucketRuleSchema.parse({ pattern: "bucket", collection: "orders" }) as BucketRule;
  assert.equal(foldsLooseEntries(rule), true);
  assert.equal(foldsLooseEntries(other), false);
  assert.equal(foldsLooseEntries({ ...other, looseEntries: true }), true);
  assert.equal(foldsLooseEntries({ ...rule, looseEntries: false }), false);
});

void test("a loose entry is a document with the key and a date and neither entries nor a count", () => {
  assert.equal(isLooseEntry(rule, { _id: 1, ...SEED_TRADE }), true);
  assert.equal(isLooseEntry(rule, { _id: 1, ...SEED_TRADE, count: 1 }), false);
  assert.equal(isLooseEntry(rule, { _id: 1, ...SEED_TRADE, history: [] }), false);
  assert.equal(isLooseEntry(rule, { _id: 1, ...SEED_TRADE, date: "2023-10-26" }), false);
  assert.equal(isLooseEntry(rule, { _id: 1, ...SEED_TRADE, customerId: null }), false);
});

void test("a loose trade without a bucket becomes a new bucket named by its date, and is deleted", () => {
  const db = new MemoryDb();
  db.insertOne("trades", { _id: "t1", ...SEED_TRADE });
  const plan = fold(db);
  assert.equal(plan.outcome === "writes" && plan.kind, "folded");
  const { customerId: _key, ...entry } = SEED_TRADE;
  assert.deepEqual(db.find("trades"), [
    { _id: "123_1698335223", customerId: 123, count: 1, history: [entry] },
  ]);
});

void test("a loose trade joins its customer's newest open bucket, verbatim but for _id and key", () => {
  const db = new MemoryDb();
  const earlier = { type: "sell", ticker: "MDB", qty: 29, date: new Date("2023-10-25T09:00:00Z") };
  db.insertOne("trades", { _id: "123_1", customerId: 123, count: 10, history: Array(10).fill(earlier) });
  db.insertOne("trades", { _id: "123_2", customerId: 123, count: 1, history: [earlier] });
  db.insertOne("trades", { _id: "t1", ...SEED_TRADE, note: { nested: [1, 2] } });
  fold(db);
  const [open] = db.find("trades", (doc) => doc._id === "123_2");
  const { customerId: _key, ...entry } = SEED_TRADE;
  assert.deepEqual(open, {
    _id: "123_2",
    customerId: 123,
    count: 2,
    history: [earlier, { ...entry, note: { nested: [1, 2] } }],
  });
  assert.equal(db.find("trades", (doc) => doc._id === "t1").length, 0);
});

void test("a loose trade whose customer's buckets are all full starts a new bucket after them", () => {
  const db = new MemoryDb();
  const full = Array.from({ length: 10 }, () => ({ type: "buy", date: SEED_TRADE.date }));
  db.insertOne("trades", { _id: "123_1698335223", customerId: 123, count: 10, history: full });
  db.insertOne("trades", { _id: "t1", ...SEED_TRADE });
  fold(db);
  assert.deepEqual(
    db.find("trades").map((doc) => [doc._id, doc.count]),
    [
      ["123_1698335223", 10],
      ["123_1698335223_000001", 1],
    ],
  );
});

void test("23 loose trades fill the open bucket to 10, then new buckets of 10, 10 and 1, in date order", () => {
  const db = new MemoryDb();
  const old = { type: "buy", date: new Date("2023-10-01T00:00:00Z") };
  db.insertOne("trades", { _id: "123_1", customerId: 123, count: 8, history: Array(8).fill(old) });
  for (let i = 22; i >= 0; i--)
    db.insertOne("trades", {
      _id: `t${i}`,
      customerId: 123,
      ticker: `T${i}`,
      date: new Date(Date.UTC(2023, 10, 1, 0, i)),
    });
  fold(db);
  const tickers = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `T${from + i}`);
  const buckets = db.find("trades").sort((a, b) => (String(a._id) < String(b._id) ? -1 : 1));
  assert.deepEqual(
    buckets.map((doc) => [
      doc._id,
      doc.count,
      (doc.history as Document[]).map((entry) => entry.ticker ?? "old"),
    ]),
    [
      ["123_1", 10, [...Array(8).fill("old"), ...tickers(0, 2)]],
      ["123_1698796920", 10, tickers(2, 12)],
      ["123_1698797520", 10, tickers(12, 22)],
      ["123_1698798120", 1, tickers(22, 23)],
    ],
  );
});

void test("a loose entry whose key cannot name a bucket is skipped, not folded", () => {
  const db = new MemoryDb();
  db.insertOne("trades", { _id: "t1", ...SEED_TRADE, customerId: "" });
  const entries = db.find("trades");
  const plan = planLooseEntryFold(rule, { key: "", entries, openBucket: null, takenIds: new Set() });
  assert.equal(plan.outcome, "skip");
});

void test("a fold planned before the loose document went away is stale, not a duplicate", () => {
  const db = new MemoryDb();
  db.insertOne("trades", { _id: "t1", ...SEED_TRADE });
  const plan = planLooseEntryFold(rule, stateOf(db));
  db.deleteOne("trades", { _id: "t1" });
  assert.ok(plan.outcome === "writes");
  assert.throws(() => db.apply(plan.writes));
  assert.deepEqual(db.find("trades"), []);
});
