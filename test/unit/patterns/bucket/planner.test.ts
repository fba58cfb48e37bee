import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { planBucketSplit, planBucketSplits, splitBaseIds } from "../../../../src/patterns/bucket/planner.js";
import { bucketIdAllocator } from "../../../../src/patterns/bucket/bucket-ids.js";
import type { Plan } from "../../../../src/patterns/plan.js";
import { MemoryDb } from "../support/memory-db.js";
import { readBucketState } from "../support/readers.js";
import { bucketRule as rule } from "../support/rules.js";

const FIRST = 1698349623; // the seed's first trade, 2023-10-26T15:47:03Z

function trades(count: number, secondsApart = 60): Document[] {
  return Array.from({ length: count }, (_, i) => ({
    type: i % 2 === 0 ? "buy" : "sell",
    ticker: "MDB",
    qty: i + 1,
    date: new Date((FIRST + i * secondsApart) * 1000 + 434),
  }));
}

function split(db: MemoryDb, id: string): Plan {
  const plan = planBucketSplit(rule, readBucketState(db, rule, id));
  if (plan.outcome === "writes") db.apply(plan.writes);
  return plan;
}

function pages(db: MemoryDb): Document[] {
  return db
    .find("trades", (doc) => String(doc._id).startsWith("123_"))
    .sort((a, b) => (String(a._id) < String(b._id) ? -1 : 1));
}

void test("a bucket of 23 trades becomes three buckets of 10, 10 and 3 in time order", () => {
  const db = new MemoryDb();
  const history = trades(23);
  db.insertOne("trades", { _id: `123_${FIRST}`, customerId: 123, count: 23, history });
  split(db, `123_${FIRST}`);
  const buckets = pages(db);
  assert.deepEqual(
    buckets.map((bucket) => [bucket._id, bucket.count]),
    [
      [`123_${FIRST}`, 10],
      [`123_${FIRST + 600}`, 10],
      [`123_${FIRST + 1200}`, 3],
    ],
  );
  assert.deepEqual(
    buckets.flatMap((bucket) => bucket.history as Document[]),
    history,
  );
  assert.deepEqual(buckets[2]?.customerId, 123);
});

void test("splitting a split bucket again is a no-op", () => {
  const db = new MemoryDb();
  db.insertOne("trades", { _id: `123_${FIRST}`, customerId: 123, count: 23, history: trades(23) });
  split(db, `123_${FIRST}`);
  for (const bucket of pages(db)) assert.deepEqual(split(db, bucket._id as string), { outcome: "none" });
});

void test("a taken _id gets a zero-padded suffix that sorts between it and the next second", () => {
  const db = new MemoryDb();
  db.insertOne("trades", { _id: `123_${FIRST}`, customerId: 123, count: 30, history: trades(30, 0) });
  split(db, `123_${FIRST}`);
  const ids = pages(db).map((bucket) => bucket._id as string);
  assert.deepEqual(ids, [`123_${FIRST}`, `123_${FIRST}_000001`, `123_${FIRST}_000002`]);
  assert.ok(`123_${FIRST}_000002` < `123_${FIRST + 1}`);
});

void test("suffixes past nine keep string order equal to numeric order", () => {
  const taken = new Set([
    "k_1",
    ...Array.from({ length: 9 }, (_, i) => `k_1_${String(i + 1).padStart(6, "0")}`),
  ]);
  const tenth = bucketIdAllocator(taken)("k_1");
  assert.equal(tenth, "k_1_000010");
  assert.ok(`k_1_000009` < (tenth as string) && (tenth as string) < "k_2");
});

void test("a new bucket's suffix follows the largest taken one, never a gap, so it sorts after them", () => {
  const allocate = bucketIdAllocator(["k_1", "k_1_000003"]);
  assert.equal(allocate("k_1"), "k_1_000004");
  assert.equal(allocate("k_1"), "k_1_000005");
  assert.equal(allocate("k_2"), "k_2");
});

void test("new bucket _ids avoid those other buckets of the customer already take", () => {
  const db = new MemoryDb();
  db.insertOne("trades", { _id: `123_${FIRST + 600}`, customerId: 123, count: 1, history: trades(1) });
  db.insertOne("trades", { _id: `123_${FIRST}`, customerId: 123, count: 12, history: trades(12) });
  split(db, `123_${FIRST}`);
  assert.ok(pages(db).some((bucket) => bucket._id === `123_${FIRST + 600}_000001`));
});

void test("a count that disagrees with the history is repaired", () => {
  const db = new MemoryDb();
  db.insertOne("trades", { _id: `123_${FIRST}`, customerId: 123, count: 7, history: trades(3) });
  const plan = split(db, `123_${FIRST}`);
  assert.equal(plan.outcome === "writes" && plan.kind, "repaired");
  assert.equal(pages(db)[0]?.count, 3);
});

void test("a missing count is repaired", () => {
  const db = new MemoryDb();
  db.insertOne("trades", { _id: `123_${FIRST}`, customerId: 123, history: trades(2) });
  split(db, `123_${FIRST}`);
  assert.equal(pages(db)[0]?.count, 2);
});

void test("a bucket within bounds with the right count needs nothing", () => {
  const bucket = { _id: `123_${FIRST}`, customerId: 123, count: 10, history: trades(10) };
  assert.deepEqual(planBucketSplit(rule, { bucket, takenIds: new Set() }), { outcome: "none" });
});

void test("a bucket without a customerId is skipped with a reason naming the field", () => {
  const bucket = { _id: "x", count: 11, history: trades(11) };
  const plan = planBucketSplit(rule, { bucket, takenIds: new Set() });
  assert.match(plan.outcome === "skip" ? plan.reason : "", /^customerId is missing/);
});

void test("a trade without a date that would start a new bucket is skipped naming its position", () => {
  const history = trades(12);
  delete history[10]?.date;
  const plan = planBucketSplit(rule, {
    bucket: { _id: "x", customerId: 123, count: 12, history },
    takenIds: new Set(),
  });
  assert.match(
    plan.outcome === "skip" ? plan.reason : "",
    /^history\[10\]\.date is missing, expected a date/,
  );
});

void test("a trade with a string date that would start a new bucket is skipped", () => {
  const history: Document[] = trades(12);
  history[10] = { ...history[10], date: "2023-10-26" };
  const plan = planBucketSplit(rule, {
    bucket: { _id: "x", customerId: 123, count: 12, history },
    takenIds: new Set(),
  });
  assert.equal(plan.outcome, "skip");
});

void test("trades that do not start a bucket are moved verbatim whatever their fields", () => {
  const history: Document[] = trades(12);
  history[11] = { type: "sell", ticker: "MSFT", quantity: 3 };
  const db = new MemoryDb();
  db.insertOne("trades", { _id: `123_${FIRST}`, customerId: 123, count: 12, history });
  split(db, `123_${FIRST}`);
  assert.deepEqual(pages(db)[1]?.history, history.slice(10));
});

void test("only the first trade of each new bucket needs a date: undated trades elsewhere do not stop the split", () => {
  const history: Document[] = trades(25);
  for (const position of [3, 9, 14, 24]) delete history[position]?.date;
  const db = new MemoryDb();
  db.insertOne("trades", { _id: `123_${FIRST}`, customerId: 123, count: 25, history });
  assert.equal(split(db, `123_${FIRST}`).outcome, "writes");
  assert.deepEqual(
    pages(db).map((bucket) => [bucket._id, bucket.history]),
    [
      [`123_${FIRST}`, history.slice(0, 10)],
      [`123_${FIRST + 10 * 60}`, history.slice(10, 20)],
      [`123_${FIRST + 20 * 60}`, history.slice(20)],
    ],
  );
});

void test("a history that is not an array is skipped with a reason naming it", () => {
  const plan = planBucketSplit(rule, {
    bucket: { _id: "x", customerId: 1, history: {} },
    takenIds: new Set(),
  });
  assert.match(plan.outcome === "skip" ? plan.reason : "", /^history is a document, expected an array/);
});

void test("the bucket's write is guarded by the history size it was planned from", () => {
  const bucket = { _id: "x", customerId: 1, count: 11, history: trades(11) };
  const plan = planBucketSplit(rule, { bucket, takenIds: new Set() });
  assert.ok(plan.outcome === "writes");
  assert.deepEqual(plan.writes[0]?.op === "updateOne" && plan.writes[0].filter, {
    _id: "x",
    history: { $size: 11 },
  });
});

void test("two buckets of one customer split together name their new buckets apart", () => {
  // Both buckets' eleventh trade falls in the same second: alone, each would name "123_<it>".
  const late = trades(11).map((entry, i) =>
    i === 10 ? { ...entry, date: new Date((FIRST + 3600) * 1000) } : entry,
  );
  const buckets = [`123_${FIRST}`, `123_${FIRST + 1}`].map((_id) => ({
    _id,
    customerId: 123,
    count: 11,
    history: late,
  }));
  const plans = planBucketSplits(rule, [...buckets, null], new Set());
  const created = plans.flatMap((plan) =>
    plan.outcome === "writes"
      ? plan.writes.flatMap((write) => (write.op === "insertOne" ? [write.document._id] : []))
      : [],
  );
  assert.deepEqual(created, [`123_${FIRST + 3600}`, `123_${FIRST + 3600}_000001`]);
  assert.deepEqual(plans[2], { outcome: "none" });
});

void test("a split whose every suffix is taken is skipped with the key cut short, however long", () => {
  const customer = "k".repeat(1 << 20);
  const bucket = { _id: `${customer}_${FIRST}`, customerId: customer, count: 11, history: trades(11) };
  const takenIds = new Set(splitBaseIds(rule, bucket).flatMap((base) => [base, `${base}_999999`]));
  const plan = planBucketSplit(rule, { bucket, takenIds });
  assert.equal(plan.outcome, "skip");
  assert.match(
    plan.outcome === "skip" ? plan.reason : "",
    /^history\[10\]: every suffix of "k+…" \(1048587 bytes\) is taken$/,
  );
});

void test("a split bounded to 3 writes moves the last two groups, named as the whole split names them", () => {
  const db = new MemoryDb();
  db.insertOne("trades", { _id: `123_${FIRST}`, customerId: 123, count: 45, history: trades(45) });
  const state = readBucketState(db, rule, `123_${FIRST}`);
  const whole = planBucketSplit(rule, state);
  const part = planBucketSplit(rule, state, 3);
  assert.ok(whole.outcome === "writes" && part.outcome === "writes");
  assert.equal(part.partial, true);
  assert.equal(whole.partial, undefined);
  assert.equal(part.elementsMoved, 15);
  const inserted = (plan: typeof part) =>
    plan.writes.flatMap((w) => (w.op === "insertOne" ? [w.document] : []));
  assert.deepEqual(inserted(part), inserted(whole).slice(-2));
});

// The soak's naive application pushes into the newest bucket by _id: between two parts, that is
// a bucket the first part made, and the entries still in the first bucket must be older.
void test("a push into the newest bucket between two parts stays after every older trade", () => {
  const db = new MemoryDb();
  const history = trades(46);
  db.insertOne("trades", { _id: `123_${FIRST}`, customerId: 123, count: 45, history: history.slice(0, 45) });
  const part = planBucketSplit(rule, readBucketState(db, rule, `123_${FIRST}`), 3);
  assert.ok(part.outcome === "writes" && part.partial);
  db.apply(part.writes);
  const newest = pages(db).at(-1)!;
  db.apply([
    {
      op: "updateOne",
      collection: "trades",
      filter: { _id: newest._id },
      update: { $push: { history: { $each: [history[45]], $slice: 100 } }, $inc: { count: 1 } },
    },
  ]);
  let plan: Plan;
  do plan = split(db, `123_${FIRST}`);
  while (plan.outcome === "writes" && pages(db)[0]!.history.length > 10);
  const qty = pages(db).flatMap((bucket) =>
    (bucket.history as Document[]).map((trade) => trade.qty as number),
  );
  assert.deepEqual(
    qty,
    history.map((trade) => trade.qty as number),
  );
});

void test("a part never ends between two groups that start in one second: the whole split is planned", () => {
  const db = new MemoryDb();
  // Thirty trades in one second: both groups past the kept ten start in it.
  const sameSecond = trades(30, 0);
  db.insertOne("trades", { _id: `123_${FIRST}`, customerId: 123, count: 30, history: sameSecond });
  const part = planBucketSplit(rule, readBucketState(db, rule, `123_${FIRST}`), 2);
  assert.ok(part.outcome === "writes");
  assert.equal(part.partial, undefined, "every group starts in the same second: no safe part");
  assert.equal(part.writes.length, 3);
});
