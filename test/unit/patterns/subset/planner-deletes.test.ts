// Deletes in the full set reaching the product, the copy ledger that tells the sidecar's
// copy-backs from an application's re-inserts, and a pull from the product being a trim.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { planSubset } from "../../../../src/patterns/subset/planner.js";
import {
  ledgeredCopies,
  type CopyLedger,
  type LedgeredCopy,
} from "../../../../src/patterns/subset/copy-ledger.js";
import type { Plan } from "../../../../src/patterns/plan.js";
import { MEMORY_DB_NOW, type MemoryDb } from "../support/memory-db.js";
import { embeddedIds, fullSetIds, range, reviewsDb } from "../support/product-reviews.js";
import { readDeletionState, readSubsetState } from "../support/readers.js";
import { subsetRule as rule } from "../support/rules.js";

const DAY = 86_400_000;
const STATE = "pattern_sidecar_state";

function review(id: number): Document {
  return {
    review_id: id,
    review_author: `author${id}`,
    published_date: new Date(Date.UTC(2017, 11, 6) + id * DAY),
  };
}

/** The ledger's records of the copy `copyId`. */
function ledgerRecordsOf(db: MemoryDb, copyId: unknown): LedgeredCopy[] {
  return ledgeredCopies(db.find(STATE)).filter(({ copied }) => copied === copyId);
}

/** A ledger whose copy ids count up: "copy1", "copy2", ... */
function countingLedger(): CopyLedger {
  let next = 0;
  return { collection: STATE, newId: () => `copy${++next}` };
}

/** Product p1 with reviews 1..count, corrected: all in the full set, the newest 10 embedded. */
function correctedProduct(count: number, ledger = countingLedger()): MemoryDb {
  const db = reviewsDb();
  db.insertOne("products", { _id: "p1", reviews: range(1, count).map(review) });
  apply(db, planSubset(rule, readSubsetState(db, rule, "p1"), ledger));
  return db;
}

function apply(db: MemoryDb, plan: Plan): Plan {
  if (plan.outcome === "writes") db.apply(plan.writes);
  return plan;
}

function correct(db: MemoryDb, ledger: CopyLedger): Plan {
  return apply(db, planSubset(rule, readSubsetState(db, rule, "p1"), ledger));
}

function propagateDelete(db: MemoryDb, entryId: number, ledger: CopyLedger): Plan {
  return apply(db, planSubset(rule, readDeletionState(db, rule, "p1", entryId, STATE), ledger));
}

/** The application's delete of review `id` from the full set. */
function deleteFromFullSet(db: MemoryDb, id: number): void {
  assert.ok(db.deleteOne("reviews", { product_id: "p1", review_id: id }));
}

void test("a deleted embedded review leaves the product and the next newest takes its place", () => {
  const ledger = countingLedger();
  const db = correctedProduct(12, ledger);
  deleteFromFullSet(db, 12);
  const plan = propagateDelete(db, 12, ledger);
  assert.equal(plan.outcome === "writes" && plan.kind, "deleted");
  assert.deepEqual(embeddedIds(db), range(2, 11).reverse());
  assert.deepEqual(fullSetIds(db), range(1, 11));
});

void test("a deleted review in the middle of the embedded ones leaves a product of fewer than 10 smaller", () => {
  const ledger = countingLedger();
  const db = correctedProduct(3, ledger);
  deleteFromFullSet(db, 2);
  propagateDelete(db, 2, ledger);
  assert.deepEqual(embeddedIds(db), [3, 1]);
});

void test("a deleted review that is not embedded leaves the product as it is", () => {
  const ledger = countingLedger();
  const db = correctedProduct(12, ledger);
  deleteFromFullSet(db, 1);
  assert.deepEqual(propagateDelete(db, 1, ledger), { outcome: "none" });
  assert.deepEqual(embeddedIds(db), range(3, 12).reverse());
});

void test("a copy-back the sidecar made after the delete is deleted with its ledger entry", () => {
  const ledger = countingLedger();
  const db = correctedProduct(12, ledger);
  deleteFromFullSet(db, 12);
  // A plain correction of the product before the delete's: review 12 is still embedded.
  assert.equal(correct(db, ledger).outcome, "writes");
  assert.deepEqual(fullSetIds(db), range(1, 12), "the plain correction copied review 12 back");
  const copyBack = db.find("reviews", (doc) => doc.review_id === 12)[0];

  const plan = propagateDelete(db, 12, ledger);

  assert.equal(plan.outcome === "writes" && plan.kind, "deleted");
  assert.deepEqual(fullSetIds(db), range(1, 11));
  assert.deepEqual(embeddedIds(db), range(2, 11).reverse());
  assert.deepEqual(ledgerRecordsOf(db, copyBack?._id), []);
});

void test("a review an application inserted again after deleting it stays, embedded", () => {
  const ledger = countingLedger();
  const db = correctedProduct(12, ledger);
  deleteFromFullSet(db, 12);
  db.insertOne("reviews", { _id: "app-insert", ...review(12), product_id: "p1" });
  assert.deepEqual(propagateDelete(db, 12, ledger), { outcome: "none" });
  assert.deepEqual(embeddedIds(db), range(3, 12).reverse());
  assert.deepEqual(fullSetIds(db), range(1, 12));
});

void test("a review embedded twice and deleted leaves the product entirely", () => {
  const ledger = countingLedger();
  const db = correctedProduct(3, ledger);
  db.updateOne("products", { _id: "p1" }, { $push: { reviews: { $each: [review(3)] } } });
  deleteFromFullSet(db, 3);
  propagateDelete(db, 3, ledger);
  assert.deepEqual(embeddedIds(db), [2, 1]);
});

void test("propagating a delete also copies reviews pushed meanwhile, recording them", () => {
  const ledger = countingLedger();
  const db = correctedProduct(12, ledger);
  db.updateOne("products", { _id: "p1" }, { $push: { reviews: { $each: [review(13)] } } });
  deleteFromFullSet(db, 12);
  const plan = propagateDelete(db, 12, ledger);
  assert.equal(plan.outcome === "writes" && plan.kind, "deleted");
  assert.deepEqual(embeddedIds(db), [13, ...range(3, 11).reverse()]);
  assert.deepEqual(fullSetIds(db), [...range(1, 11), 13]);
  const copy13 = db.find("reviews", (doc) => doc.review_id === 13)[0];
  assert.equal(ledgerRecordsOf(db, copy13?._id).length, 1);
});

void test("every copy gets its _id in the plan and a ledger record naming rule, product, entry and the server's time", () => {
  const plan = planSubset(
    rule,
    { source: { _id: "p1", reviews: [review(1)] }, fullSet: [] },
    countingLedger(),
  );
  assert.ok(plan.outcome === "writes");
  assert.deepEqual(plan.writes.slice(0, 2), [
    {
      op: "insertOne",
      collection: "reviews",
      document: { _id: "copy1", ...review(1), product_id: "p1" },
    },
    { op: "record", collection: STATE, record: { copied: "copy1", rule: rule.name, source: "p1", entry: 1 } },
  ]);
  const db = reviewsDb();
  db.insertOne("products", { _id: "p1", reviews: [review(1)] });
  db.apply(plan.writes);
  const [ledger] = db.find(STATE);
  assert.deepEqual(ledger?.recordedAt, MEMORY_DB_NOW);
  assert.deepEqual(ledger?.records, [{ copied: "copy1", rule: rule.name, source: "p1", entry: 1 }]);
});

void test("without a ledger (deletes not propagated) copies are not recorded and get the server's _id", () => {
  const plan = planSubset(rule, { source: { _id: "p1", reviews: [review(1)] }, fullSet: [] });
  assert.ok(plan.outcome === "writes");
  assert.deepEqual(
    plan.writes.map((write) => [write.op, write.collection]),
    [["insertOne", "reviews"]],
  );
  assert.equal(plan.writes[0]?.op === "insertOne" && plan.writes[0].document._id, undefined);
});

const copyBack = { _id: "copy7", ...review(12), product_id: "p1" };

/** Propagates the delete of review 12, whose holder is `copyBack`, recorded as `copy` says. */
function undoCopyBack(copy: LedgeredCopy): Plan {
  const source = { _id: "p1", reviews: [review(12), review(11)] };
  const fullSet = [copyBack, { _id: "a11", ...review(11), product_id: "p1" }];
  return planSubset(rule, { source, fullSet, deleted: { entryId: 12, copies: [copy] } }, countingLedger());
}

const copy7 = { copied: "copy7", rule: rule.name, source: "p1", entry: 12 };

void test("a copy-back is undone only by its _id, product and entry, guarded, and recorded undone", () => {
  const plan = undoCopyBack(copy7);
  assert.ok(plan.outcome === "writes");
  assert.deepEqual(
    plan.writes.filter((write) => write.collection !== "products"),
    [
      { op: "deleteOne", collection: "reviews", filter: { _id: "copy7", product_id: "p1", review_id: 12 } },
      // A record of its own: the document that recorded the copy is another transaction's.
      { op: "record", collection: STATE, record: { copied: "copy7", undone: true } },
    ],
  );
});

void test("a copy-back recorded by an earlier version, in a document of its own, is forgotten with it", () => {
  const plan = undoCopyBack({ ...copy7, legacy: true });
  assert.ok(plan.outcome === "writes");
  assert.deepEqual(
    plan.writes.filter((write) => write.collection === STATE),
    [{ op: "deleteOne", collection: STATE, filter: { _id: { copied: "copy7" } } }],
  );
});

void test("a review pulled from the product by an application stays in reviews and the array is refilled", () => {
  const ledger = countingLedger();
  const db = correctedProduct(12, ledger);
  db.updateOne("products", { _id: "p1" }, { $set: { reviews: range(3, 11).reverse().map(review) } });
  const plan = correct(db, ledger);
  assert.equal(plan.outcome === "writes" && plan.kind, "repaired");
  assert.deepEqual(embeddedIds(db), range(3, 12).reverse());
  assert.deepEqual(fullSetIds(db), range(1, 12));
});
