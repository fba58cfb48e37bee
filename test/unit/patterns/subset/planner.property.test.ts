// Random interleavings of reviews pushed to the product, reviews inserted straight into the
// full set, and corrections: every review ends in the full set exactly once, the product
// embeds the newest of them newest first, and a corrected product plans to nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Document } from "mongodb";
import { planSubset } from "../../../../src/patterns/subset/planner.js";
import { MemoryDb } from "../support/memory-db.js";
import { readSubsetState } from "../support/readers.js";
import { subsetRule } from "../support/rules.js";
import { asMultiset } from "../support/subsequence.js";

const rule = { ...subsetRule, threshold: 4 };
const DAY = 86_400_000;

type Step = { kind: "push" | "insertDirectly"; day: number } | { kind: "correct" };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constantFrom("push" as const, "insertDirectly" as const),
    day: fc.integer({ min: 0, max: 6 }),
  }),
  fc.constant({ kind: "correct" as const }),
);

// Applies one plan, then plans again at once: a planner that needs two rounds fails here.
function correct(db: MemoryDb): boolean {
  const plan = planSubset(rule, readSubsetState(db, rule, "p1"));
  assert.notEqual(plan.outcome, "skip");
  if (plan.outcome !== "writes") return false;
  db.apply(plan.writes);
  assert.deepEqual(
    planSubset(rule, readSubsetState(db, rule, "p1")),
    { outcome: "none" },
    "planning again right after applying one plan yields nothing",
  );
  return true;
}

function correctUntilNone(db: MemoryDb): void {
  for (let round = 0; round < 20; round += 1) if (!correct(db)) return;
  assert.fail("corrections did not converge");
}

function newestFirst(a: Document, b: Document): number {
  const byDate = (b.published_date as Date).getTime() - (a.published_date as Date).getTime();
  return byDate !== 0 ? byDate : (b.review_id as number) - (a.review_id as number);
}

void test("interleaved review writes and corrections keep every review once and embed the newest", () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
      const db = new MemoryDb({ reviews: [["product_id", "review_id"]] });
      db.insertOne("products", { _id: "p1", name: "Super Widget", reviews: [] });
      const written: number[] = [];
      for (const s of steps) {
        if (s.kind === "correct") {
          correct(db);
          continue;
        }
        const review = {
          review_id: written.length,
          review_author: "a",
          published_date: new Date(s.day * DAY),
        };
        written.push(review.review_id);
        if (s.kind === "push")
          db.updateOne("products", { _id: "p1" }, { $push: { reviews: { $each: [review] } } });
        else db.insertOne("reviews", { ...review, product_id: "p1" });
      }
      correctUntilNone(db);
      const fullSet = db.find("reviews");
      assert.deepEqual(asMultiset(fullSet.map((doc) => doc.review_id)), asMultiset(written));
      const expected = fullSet
        .sort(newestFirst)
        .slice(0, rule.threshold)
        .map((doc) => doc.review_id);
      const embedded = (db.find("products")[0]?.reviews as Document[]).map((entry) => entry.review_id);
      assert.deepEqual(embedded, expected);
    }),
    { numRuns: 150 },
  );
});
