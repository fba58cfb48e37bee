// Random interleavings of loose trades written the seed's old way, the seed's guarded
// upserts and folds: every trade exists exactly once at every step, and once
// every loose trade is folded, every bucket holds at most 10 trades and a true count.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Document } from "mongodb";
import { planLooseEntryFold, type LooseEntryState } from "../../../../src/patterns/bucket/loose-entries.js";
import { MemoryDb } from "../support/memory-db.js";
import { bucketRule as rule } from "../support/rules.js";

const START = 1698335223;

type Step = { kind: "loose" } | { kind: "seedUpsert" } | { kind: "fold" };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ kind: "loose" as const }),
  fc.constant({ kind: "seedUpsert" as const }),
  fc.constant({ kind: "fold" as const }),
);

interface World {
  db: MemoryDb;
  next: number;
}

function trade(world: World): Document {
  const n = world.next++;
  return { type: "buy", ticker: `T${n}`, date: new Date((START + n) * 1000) };
}

const isBucket = (doc: Document) => Array.isArray(doc.history);

function openBucket(world: World): Document | undefined {
  return world.db
    .find("trades", (doc) => isBucket(doc) && (doc.count as number) < rule.threshold)
    .sort((a, b) => (String(a._id) < String(b._id) ? 1 : -1))[0];
}

// The seed's `updateOne({ _id: /^123_/, count: { $lt: 10 } }, { $push, $inc, $setOnInsert }, { upsert: true })`.
function seedUpsert(world: World): void {
  const entry = trade(world);
  const open = openBucket(world);
  if (open)
    world.db.updateOne(
      "trades",
      { _id: open._id },
      { $push: { history: { $each: [entry] } }, $inc: { count: 1 } },
    );
  else {
    const id = `123_${Math.floor((entry.date as Date).getTime() / 1000)}`;
    world.db.insertOne("trades", { _id: id, customerId: 123, count: 1, history: [entry] });
  }
}

// A fold of the key's loose trades, oldest first, as open-bucket-reader.ts reads them.
function fold(world: World): void {
  const entries = world.db
    .find("trades", (doc) => !isBucket(doc))
    .sort((a, b) => (a.date as Date).getTime() - (b.date as Date).getTime());
  const takenIds = new Set(world.db.find("trades", isBucket).map((doc) => String(doc._id)));
  const state: LooseEntryState = { key: 123, entries, openBucket: openBucket(world) ?? null, takenIds };
  const plan = planLooseEntryFold(rule, state);
  assert.equal(plan.outcome, entries.length === 0 ? "none" : "writes");
  if (plan.outcome === "writes") world.db.apply(plan.writes);
}

function tickers(world: World): string[] {
  return world.db
    .find("trades")
    .flatMap((doc) => (isBucket(doc) ? (doc.history as Document[]) : [doc]))
    .map((entry) => entry.ticker as string)
    .sort();
}

void test("folding loose trades beside the seed's upserts keeps every trade exactly once, in buckets of at most 10", () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
      const world: World = { db: new MemoryDb(), next: 0 };
      for (const current of steps) {
        if (current.kind === "loose") world.db.insertOne("trades", { customerId: 123, ...trade(world) });
        else if (current.kind === "seedUpsert") seedUpsert(world);
        else fold(world);
        assert.deepEqual(tickers(world), Array.from({ length: world.next }, (_, n) => `T${n}`).sort());
      }
      fold(world);
      for (const bucket of world.db.find("trades")) {
        assert.ok((bucket.history as Document[]).length <= rule.threshold);
        assert.equal(bucket.count, (bucket.history as Document[]).length);
      }
    }),
  );
});
