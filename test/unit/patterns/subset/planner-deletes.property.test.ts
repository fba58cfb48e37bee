// Random interleavings of an application's writes (pushes to the product, inserts into the
// full set, deletes from the full set, pulls from the product) with the sidecar's plain
// corrections, which may run at any moment, also between a delete and its propagation (the
// race the copy ledger exists for), and the propagations of deletes, in the order of the
// deletes. Once everything has run: every surviving review is in the full set exactly once,
// no deleted review is anywhere, and the product embeds the newest of the full set.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Document } from "mongodb";
import { ledgeredCopies, type CopyLedger } from "../../../../src/patterns/subset/copy-ledger.js";
import { planSubset } from "../../../../src/patterns/subset/planner.js";
import type { SubsetState } from "../../../../src/patterns/subset/planner.js";
import { MemoryDb } from "../support/memory-db.js";
import { newestFirst, readDeletionState, readSubsetState } from "../support/readers.js";
import { subsetRule } from "../support/rules.js";
import { asMultiset } from "../support/subsequence.js";

const rule = { ...subsetRule, threshold: 4 };
const STATE = "pattern_sidecar_state";
const DAY = 86_400_000;

type Step =
  | { kind: "push" | "insertDirectly"; day: number }
  | { kind: "deleteFromFullSet" | "pull"; pick: number }
  | { kind: "correct" | "propagateOldestDelete" };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constantFrom("push" as const, "insertDirectly" as const), day: fc.nat(6) }),
  fc.record({ kind: fc.constantFrom("deleteFromFullSet" as const, "pull" as const), pick: fc.nat(50) }),
  fc.constantFrom({ kind: "correct" as const }, { kind: "propagateOldestDelete" as const }),
);

function countingLedger(): CopyLedger {
  let next = 0;
  return { collection: STATE, newId: () => `copy${++next}` };
}

class Model {
  readonly db = new MemoryDb({ reviews: [["product_id", "review_id"]] });
  readonly ledger = countingLedger();
  /** Reviews that should survive: written, and neither deleted nor pulled before being copied. */
  readonly alive = new Set<number>();
  /** Entries deleted from the full set whose delete has not been propagated yet, in order. */
  readonly pendingDeletes: number[] = [];
  private written = 0;

  constructor() {
    this.db.insertOne("products", { _id: "p1", reviews: [] });
  }

  run(s: Step): void {
    if (s.kind === "push" || s.kind === "insertDirectly") return this.write(s.kind, s.day);
    if (s.kind === "deleteFromFullSet") return this.deleteFromFullSet(s.pick);
    if (s.kind === "pull") return this.pull(s.pick);
    if (s.kind === "correct") return void this.plan(readSubsetState(this.db, rule, "p1"));
    const entryId = this.pendingDeletes.shift();
    if (entryId !== undefined) this.plan(readDeletionState(this.db, rule, "p1", entryId, STATE));
  }

  finish(): void {
    while (this.pendingDeletes.length > 0) this.run({ kind: "propagateOldestDelete" });
    for (let round = 0; round < 20; round += 1) if (!this.plan(readSubsetState(this.db, rule, "p1"))) return;
    assert.fail("corrections did not converge");
  }

  embedded(): Document[] {
    return this.db.find("products")[0]?.reviews as Document[];
  }

  private write(kind: "push" | "insertDirectly", day: number): void {
    const review = { review_id: this.written++, review_author: "a", published_date: new Date(day * DAY) };
    this.alive.add(review.review_id);
    if (kind === "push")
      this.db.updateOne("products", { _id: "p1" }, { $push: { reviews: { $each: [review] } } });
    else this.db.insertOne("reviews", { ...review, product_id: "p1" });
  }

  private deleteFromFullSet(pick: number): void {
    const fullSet = this.db.find("reviews");
    const victim = fullSet[pick % Math.max(fullSet.length, 1)];
    if (!victim) return;
    this.db.deleteOne("reviews", { _id: victim._id });
    this.alive.delete(victim.review_id as number);
    this.pendingDeletes.push(victim.review_id as number);
  }

  // A pull is a trim: a review already in the full set survives it; one not copied yet is gone.
  private pull(pick: number): void {
    const embedded = this.embedded();
    const pulled = embedded[pick % Math.max(embedded.length, 1)];
    if (!pulled) return;
    const rest = embedded.filter((entry) => entry.review_id !== pulled.review_id);
    this.db.updateOne("products", { _id: "p1" }, { $set: { reviews: rest } });
    const copied = this.db.find("reviews", (doc) => doc.review_id === pulled.review_id).length > 0;
    if (!copied) this.alive.delete(pulled.review_id as number);
  }

  private plan(state: SubsetState): boolean {
    const plan = planSubset(rule, state, this.ledger);
    assert.notEqual(plan.outcome, "skip");
    if (plan.outcome !== "writes") return false;
    this.db.apply(plan.writes);
    return true;
  }
}

void test("deletes, pulls and writes interleaved with corrections leave every survivor once, embedded newest first", () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
      const model = new Model();
      for (const s of steps) model.run(s);
      model.finish();
      const fullSet = model.db.find("reviews");
      assert.deepEqual(asMultiset(fullSet.map((doc) => doc.review_id)), asMultiset([...model.alive]));
      const expected = fullSet
        .sort(newestFirst(rule))
        .slice(0, rule.threshold)
        .map((doc) => doc.review_id);
      assert.deepEqual(
        model.embedded().map((entry) => entry.review_id),
        expected,
      );
      // Every copy the ledger still names is still there (an undone copy is recorded undone).
      const copyIds = new Set(fullSet.map((doc) => doc._id));
      for (const { copied, entry } of ledgeredCopies(model.db.find(STATE))) {
        assert.ok(copyIds.has(copied) || !model.alive.has(entry as number), `ledger ${String(copied)}`);
      }
    }),
    { numRuns: 300 },
  );
});
