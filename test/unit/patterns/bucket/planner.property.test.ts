// Random interleavings of the seed's guarded upserts, unguarded pushes and bulk loads with
// corrections: no trade lost or duplicated, every bucket within bounds with a true count,
// each bucket's trades keep their order in the seed's `_id`-ordered paging, and corrected
// buckets plan to nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Document } from "mongodb";
import { planBucketSplit } from "../../../../src/patterns/bucket/planner.js";
import { DuplicateKeyError, MemoryDb } from "../support/memory-db.js";
import { readBucketState } from "../support/readers.js";
import { bucketRule as rule } from "../support/rules.js";
import { asMultiset, isSubsequence } from "../support/subsequence.js";

const START = 1698349623;
const SETTLED = "planning again right after applying one plan yields nothing";

type Step =
  | { kind: "seedUpsert"; secondsLater: number }
  | { kind: "unguardedPush"; count: number; incCount: boolean }
  | { kind: "bulkBucket"; count: number }
  | { kind: "correct"; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("seedUpsert" as const), secondsLater: fc.integer({ min: 0, max: 2 }) }),
  fc.record({
    kind: fc.constant("unguardedPush" as const),
    count: fc.integer({ min: 1, max: 15 }),
    incCount: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("bulkBucket" as const), count: fc.integer({ min: 1, max: 35 }) }),
  fc.record({ kind: fc.constant("correct" as const), pick: fc.nat() }),
);

interface World {
  db: MemoryDb;
  written: string[];
  /** Each write's trades in the order one bucket received them. */
  sequences: string[][];
  now: number;
  next: number;
}

function newTrades(world: World, count: number, secondsLater = 0): Document[] {
  world.now += secondsLater;
  return Array.from({ length: count }, () => ({
    type: "buy",
    ticker: `T${world.next++}`,
    date: new Date(world.now * 1000),
  }));
}

function buckets(db: MemoryDb): Document[] {
  return db.find("trades").sort((a, b) => (String(a._id) < String(b._id) ? -1 : 1));
}

function record(world: World, trades: Document[]): void {
  const tickers = trades.map((trade) => trade.ticker as string);
  world.written.push(...tickers);
  world.sequences.push(tickers);
}

// The seed's upsert: the first bucket of customer 123 with count < 10, else a new one.
function seedUpsert(world: World, secondsLater: number): void {
  const [trade] = newTrades(world, 1, secondsLater);
  const open = world.db.find("trades").find((bucket) => (bucket.count as number) < 10);
  if (open) {
    world.db.updateOne(
      "trades",
      { _id: open._id },
      { $push: { history: { $each: [trade] } }, $inc: { count: 1 } },
    );
  } else {
    try {
      world.db.insertOne("trades", { _id: `123_${world.now}`, customerId: 123, count: 1, history: [trade] });
    } catch (error) {
      if (error instanceof DuplicateKeyError) return; // the application's write fails; nothing was stored
      throw error;
    }
  }
  record(world, [trade as Document]);
}

function bulkBucket(world: World, count: number): void {
  const trades = newTrades(world, count, 1);
  try {
    world.db.insertOne("trades", { _id: `123_${world.now}`, customerId: 123, count, history: trades });
  } catch (error) {
    if (error instanceof DuplicateKeyError) return;
    throw error;
  }
  record(world, trades);
}

function unguardedPush(world: World, count: number, incCount: boolean): void {
  const last = buckets(world.db).at(-1);
  if (!last) return;
  const trades = newTrades(world, count);
  const update: Document = { $push: { history: { $each: trades } } };
  if (incCount) update.$inc = { count };
  world.db.updateOne("trades", { _id: last._id }, update);
  record(world, trades);
}

// Applies one plan, then plans again at once: a planner that needs two rounds fails here.
function correct(db: MemoryDb, id: string): boolean {
  const plan = planBucketSplit(rule, readBucketState(db, rule, id));
  assert.notEqual(plan.outcome, "skip");
  if (plan.outcome !== "writes") return false;
  db.apply(plan.writes);
  assert.deepEqual(planBucketSplit(rule, readBucketState(db, rule, id)), { outcome: "none" }, SETTLED);
  return true;
}

function correctUntilNone(db: MemoryDb): void {
  for (let round = 0; round < 100; round += 1) {
    const changed = buckets(db).map((bucket) => correct(db, bucket._id as string));
    if (!changed.includes(true)) return;
  }
  assert.fail("corrections did not converge");
}

function run(world: World, s: Step): void {
  if (s.kind === "seedUpsert") seedUpsert(world, s.secondsLater);
  else if (s.kind === "bulkBucket") bulkBucket(world, s.count);
  else if (s.kind === "unguardedPush") unguardedPush(world, s.count, s.incCount);
  else {
    const all = buckets(world.db);
    const target = all[s.pick % Math.max(all.length, 1)];
    if (target) correct(world.db, target._id as string);
  }
}

void test("interleaved trades and corrections lose nothing and leave every bucket within bounds", () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 25 }), (steps) => {
      const world: World = { db: new MemoryDb(), written: [], sequences: [], now: START, next: 0 };
      for (const s of steps) run(world, s);
      correctUntilNone(world.db);
      const paged = buckets(world.db).flatMap((bucket) =>
        (bucket.history as Document[]).map((t) => t.ticker),
      );
      assert.deepEqual(asMultiset(paged), asMultiset(world.written));
      for (const sequence of world.sequences)
        assert.ok(isSubsequence(sequence, paged), "a write's trades keep their order");
      for (const bucket of buckets(world.db)) {
        assert.ok((bucket.history as unknown[]).length <= rule.threshold);
        assert.equal(bucket.count, (bucket.history as unknown[]).length);
        assert.ok(String(bucket._id).startsWith("123_"));
      }
    }),
    { numRuns: 150 },
  );
});
