// Random interleavings of application writes and corrections: whatever the order, nothing is
// lost or duplicated, each writer's entries keep their order, bounds hold, and a corrected
// book plans to nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { EJSON } from "bson";
import fc from "fast-check";
import type { Document } from "mongodb";
import { planOutlierMove, planOverflowChunkSplit } from "../../../../src/patterns/outlier/planner.js";
import { DuplicateKeyError, MemoryDb, StaleWriteError } from "../support/memory-db.js";
import { chunksInOrder, readOutlierState, readOverflowChunkState } from "../support/readers.js";
import { outlierRule } from "../support/rules.js";
import { asMultiset, isSubsequence } from "../support/subsequence.js";

const rule = { ...outlierRule, threshold: 5, chunkSize: 4 };
const SETTLED = "planning again right after applying one plan yields nothing";

type Step =
  | { kind: "naive"; count: number }
  | { kind: "seed"; count: number }
  | { kind: "correctSource" }
  | { kind: "correctFirstChunk" }
  | { kind: "seedDuringCorrection"; count: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("naive" as const), count: fc.integer({ min: 1, max: 9 }) }),
  fc.record({ kind: fc.constant("seed" as const), count: fc.integer({ min: 1, max: 6 }) }),
  fc.constant({ kind: "correctSource" as const }),
  fc.constant({ kind: "correctFirstChunk" as const }),
  fc.record({ kind: fc.constant("seedDuringCorrection" as const), count: fc.integer({ min: 1, max: 3 }) }),
);

interface World {
  db: MemoryDb;
  naive: string[];
  seed: string[];
  next: number;
}

function labels(world: World, count: number, prefix: string): string[] {
  return Array.from({ length: count }, () => `${prefix}${world.next++}`);
}

function book(db: MemoryDb): Document {
  return db.find("sales")[0] as Document;
}

// The seed: push to the source until has_extras, setting it once the source holds more than
// the threshold, then to the overflow document the `{book_id}` query finds first (lowest
// seq, missing first), upserting one if none exists.
function seedPush(world: World, entries: string[]): void {
  if (book(world.db).has_extras !== true) {
    world.db.updateOne("sales", { _id: 1 }, { $push: { customers_purchased: { $each: entries } } });
    if ((book(world.db).customers_purchased as unknown[]).length > rule.threshold)
      world.db.updateOne("sales", { _id: 1 }, { $set: { has_extras: true } });
    return;
  }
  const first = chunksInOrder(world.db, rule, 1)[0];
  if (first)
    world.db.updateOne(
      "extra_sales",
      { _id: first._id },
      { $push: { customers_purchased_extra: { $each: entries } } },
    );
  else world.db.insertOne("extra_sales", { book_id: 1, customers_purchased_extra: entries });
}

// Each correction applies one plan, then plans again at once: a planner that needs two
// rounds fails here.
function correctSource(db: MemoryDb): boolean {
  const plan = planOutlierMove(rule, readOutlierState(db, rule, 1));
  assert.notEqual(plan.outcome, "skip");
  if (plan.outcome !== "writes") return false;
  db.apply(plan.writes);
  assert.deepEqual(planOutlierMove(rule, readOutlierState(db, rule, 1)), { outcome: "none" }, SETTLED);
  return true;
}

// Write skew: a source correction reads, the seed application writes, then the correction
// commits unless it wrote a document the application changed meanwhile (a guard that no
// longer matches, or an _id taken). The seed's upsert of a chunk without seq touches no
// document the correction writes, so both commit; the chunk's own correction must then
// put it in order.
function seedDuringCorrection(world: World, count: number): void {
  const plan = planOutlierMove(rule, readOutlierState(world.db, rule, 1));
  const entries = labels(world, count, "s");
  world.seed.push(...entries);
  seedPush(world, entries);
  if (plan.outcome !== "writes") return;
  try {
    world.db.apply(plan.writes);
  } catch (error) {
    if (!(error instanceof StaleWriteError || error instanceof DuplicateKeyError)) throw error;
  }
}

function correctChunk(db: MemoryDb, chunk: Document): boolean {
  const plan = planOverflowChunkSplit(rule, readOverflowChunkState(db, rule, chunk));
  assert.notEqual(plan.outcome, "skip");
  if (plan.outcome !== "writes") return false;
  db.apply(plan.writes);
  const [again] = db.find("extra_sales", (doc) => EJSON.stringify(doc._id) === EJSON.stringify(chunk._id));
  // A chunk without seq beside numbered ones is merged after them and deleted.
  if (!again) return true;
  assert.deepEqual(
    planOverflowChunkSplit(rule, readOverflowChunkState(db, rule, again)),
    { outcome: "none" },
    SETTLED,
  );
  return true;
}

function correctUntilNone(db: MemoryDb): void {
  for (let round = 0; round < 100; round += 1) {
    let changed = correctSource(db);
    for (const chunk of chunksInOrder(db, rule, 1)) changed = correctChunk(db, chunk) || changed;
    if (!changed) return;
  }
  assert.fail("corrections did not converge");
}

function run(world: World, s: Step): void {
  if (s.kind === "naive") {
    const entries = labels(world, s.count, "n");
    world.naive.push(...entries);
    world.db.updateOne("sales", { _id: 1 }, { $push: { customers_purchased: { $each: entries } } });
  } else if (s.kind === "seed") {
    const entries = labels(world, s.count, "s");
    world.seed.push(...entries);
    seedPush(world, entries);
  } else if (s.kind === "seedDuringCorrection") seedDuringCorrection(world, s.count);
  else if (s.kind === "correctSource") correctSource(world.db);
  else {
    const first = chunksInOrder(world.db, rule, 1)[0];
    if (first) correctChunk(world.db, first);
  }
}

function allPurchasers(db: MemoryDb): unknown[] {
  const extras = chunksInOrder(db, rule, 1).flatMap((chunk) => chunk.customers_purchased_extra as unknown[]);
  return [...(book(db).customers_purchased as unknown[]), ...extras];
}

void test("interleaved purchases and corrections lose nothing, keep each writer's order and respect bounds", () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
      const world: World = { db: new MemoryDb(), naive: [], seed: [], next: 0 };
      world.db.insertOne("sales", { _id: 1, customers_purchased: [] });
      for (const s of steps) run(world, s);
      correctUntilNone(world.db);
      const all = allPurchasers(world.db);
      assert.deepEqual(asMultiset(all), asMultiset([...world.naive, ...world.seed]));
      assert.ok(isSubsequence(world.naive, all), "naive pushes keep their order");
      assert.ok(isSubsequence(world.seed, all), "seed-style pushes keep their order");
      assert.ok((book(world.db).customers_purchased as unknown[]).length <= rule.threshold);
      for (const chunk of chunksInOrder(world.db, rule, 1)) {
        assert.ok((chunk.customers_purchased_extra as unknown[]).length <= rule.chunkSize);
      }
      if (all.length > rule.threshold) assert.equal(book(world.db).has_extras, true);
    }),
    { numRuns: 150 },
  );
});
