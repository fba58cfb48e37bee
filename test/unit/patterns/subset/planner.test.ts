import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { planSubset } from "../../../../src/patterns/subset/planner.js";
import type { Plan } from "../../../../src/patterns/plan.js";
import type { MemoryDb } from "../support/memory-db.js";
import { embeddedIds, fullSetIds, range, reviewsDb } from "../support/product-reviews.js";
import { readSubsetState } from "../support/readers.js";
import { subsetRule as rule } from "../support/rules.js";

const DAY = 86_400_000;

function review(id: number, dayOffset = id): Document {
  return {
    review_id: id,
    review_author: `author${id}`,
    review_text: `text ${id}`,
    published_date: new Date(Date.UTC(2017, 11, 6) + dayOffset * DAY),
  };
}

function correct(db: MemoryDb): Plan {
  const plan = planSubset(rule, readSubsetState(db, rule, "p1"));
  if (plan.outcome === "writes") db.apply(plan.writes);
  return plan;
}

void test("786 embedded reviews leave the 10 newest embedded newest first and all in the full set once", () => {
  const db = reviewsDb();
  db.insertOne("products", {
    _id: "p1",
    name: "Super Widget",
    reviews: range(1, 786)
      .reverse()
      .map((id) => review(id)),
  });
  const plan = correct(db);
  assert.equal(plan.outcome === "writes" && plan.kind, "copied");
  assert.deepEqual(embeddedIds(db), range(777, 786).reverse());
  assert.deepEqual(fullSetIds(db), range(1, 786));
  assert.ok(db.find("reviews").every((doc) => doc.product_id === "p1"));
});

void test("planning a corrected product again is a no-op", () => {
  const db = reviewsDb();
  db.insertOne("products", { _id: "p1", reviews: range(1, 30).map((id) => review(id)) });
  correct(db);
  assert.deepEqual(correct(db), { outcome: "none" });
});

void test("a review pushed to the product is copied to the full set and kept if among the newest", () => {
  const db = reviewsDb();
  db.insertOne("products", { _id: "p1", reviews: range(1, 12).map((id) => review(id)) });
  correct(db);
  db.updateOne("products", { _id: "p1" }, { $push: { reviews: { $each: [review(13)] } } });
  correct(db);
  assert.deepEqual(embeddedIds(db), range(4, 13).reverse());
  assert.deepEqual(fullSetIds(db), range(1, 13));
});

void test("a review inserted directly into the full set enters the embedded array if among the newest", () => {
  const db = reviewsDb();
  db.insertOne("products", { _id: "p1", reviews: [review(2), review(1)] });
  correct(db);
  db.insertOne("reviews", { ...review(3), product_id: "p1" });
  const plan = correct(db);
  assert.equal(plan.outcome === "writes" && plan.kind, "repaired");
  assert.deepEqual(embeddedIds(db), [3, 2, 1]);
});

void test("an old review inserted directly into the full set stays out of the embedded array", () => {
  const db = reviewsDb();
  db.insertOne("products", { _id: "p1", reviews: range(10, 20).map((id) => review(id)) });
  correct(db);
  db.insertOne("reviews", { ...review(1), product_id: "p1" });
  assert.deepEqual(correct(db), { outcome: "none" });
});

void test("reviews published on the same date are ordered by review_id descending", () => {
  const db = reviewsDb();
  db.insertOne("products", { _id: "p1", reviews: [review(1, 0), review(3, 0), review(2, 0)] });
  correct(db);
  assert.deepEqual(embeddedIds(db), [3, 2, 1]);
});

void test("an embedded review edited after it was copied is restored from the full set", () => {
  const db = reviewsDb();
  db.insertOne("products", { _id: "p1", reviews: [review(1)] });
  correct(db);
  db.updateOne("products", { _id: "p1" }, { $set: { reviews: [{ ...review(1), review_text: "edited" }] } });
  correct(db);
  assert.equal((db.find("products")[0]?.reviews as Document[])[0]?.review_text, "text 1");
});

void test("the same review embedded twice is copied once and embedded once", () => {
  const db = reviewsDb();
  db.insertOne("products", { _id: "p1", reviews: [review(1), review(1)] });
  correct(db);
  assert.deepEqual(embeddedIds(db), [1]);
  assert.deepEqual(fullSetIds(db), [1]);
});

void test("the same review_id embedded twice with different contents is skipped", () => {
  const source = { _id: "p1", reviews: [review(1), { ...review(1), review_text: "other" }] };
  const plan = planSubset(rule, { source, fullSet: [] });
  assert.match(plan.outcome === "skip" ? plan.reason : "", /review_id .* twice with different contents/);
});

void test("unsettled, from the newest alone, a review embedded twice with different contents waits for the full read", () => {
  const source = { _id: "p1", reviews: [review(1), { ...review(1), review_text: "other" }] };
  const plan = planSubset(rule, { source, fullSet: [], unreadEntries: true }, undefined, true);
  assert.deepEqual(plan, { outcome: "none" });
});

void test("an embedded review without published_date is skipped with a reason naming the field", () => {
  const { published_date: _omitted, ...undated } = review(2);
  const plan = planSubset(rule, { source: { _id: "p1", reviews: [review(1), undated] }, fullSet: [] });
  assert.match(
    plan.outcome === "skip" ? plan.reason : "",
    /^reviews\[1\]\.published_date is missing, expected a date/,
  );
});

void test("an embedded review without review_id is skipped with a reason naming the field", () => {
  const { review_id: _omitted, ...anonymous } = review(2);
  const plan = planSubset(rule, { source: { _id: "p1", reviews: [anonymous] }, fullSet: [] });
  assert.match(plan.outcome === "skip" ? plan.reason : "", /^reviews\[0\]\.review_id is missing/);
});

void test("an embedded review carrying its own _id is skipped with a reason naming the entry", () => {
  const plan = planSubset(rule, {
    source: { _id: "p1", reviews: [review(1), { _id: 7, ...review(2) }] },
    fullSet: [],
  });
  assert.match(plan.outcome === "skip" ? plan.reason : "", /^reviews\[1\]\._id is present/);
});

void test("a full-set review with a string date is skipped with a reason naming the document", () => {
  const bad = { _id: "r9", ...review(9), published_date: "2019-02-18", product_id: "p1" };
  const plan = planSubset(rule, { source: { _id: "p1", reviews: [] }, fullSet: [bad] });
  assert.match(plan.outcome === "skip" ? plan.reason : "", /^reviews "r9"\.published_date is a string/);
});

void test("a product without a reviews array takes the newest reviews of its full set", () => {
  const db = reviewsDb();
  db.insertOne("products", { _id: "p1", name: "New" });
  db.insertOne("reviews", { ...review(1), product_id: "p1" });
  correct(db);
  assert.deepEqual(embeddedIds(db), [1]);
});

void test("a product whose reviews field is not an array is skipped", () => {
  const plan = planSubset(rule, { source: { _id: "p1", reviews: "none" }, fullSet: [] });
  assert.match(
    plan.outcome === "skip" ? plan.reason : "",
    /^reviews is a string \("none"\), expected an array/,
  );
});

void test("the product's write is guarded by the embedded array size it was planned from", () => {
  const plan = planSubset(rule, { source: { _id: "p1", reviews: [review(1), review(2)] }, fullSet: [] });
  assert.ok(plan.outcome === "writes");
  const update = plan.writes.find((write) => write.op === "updateOne");
  assert.deepEqual(update?.op === "updateOne" && update.filter, { _id: "p1", reviews: { $size: 2 } });
});

void test("a review copied to the full set keeps a field named __proto__ as a field", () => {
  const entry = review(1);
  Object.defineProperty(entry, "__proto__", {
    value: { x: 1 },
    enumerable: true,
    writable: true,
    configurable: true,
  });
  const db = reviewsDb();
  db.insertOne("products", { _id: "p1", reviews: [entry, ...range(2, 12).map((id) => review(id))] });
  const plan = planSubset(rule, readSubsetState(db, rule, "p1"));
  const copy = plan.outcome === "writes" ? plan.writes.find((write) => write.op === "insertOne") : undefined;
  const document = copy?.op === "insertOne" ? copy.document : {};
  assert.deepEqual(Object.keys(document).slice(0, 5), [
    "review_id",
    "review_author",
    "review_text",
    "published_date",
    "__proto__",
  ]);
  assert.deepEqual(Object.getOwnPropertyDescriptor(document, "__proto__")?.value, { x: 1 });
});

function correctUnsettled(db: MemoryDb): Plan {
  const plan = planSubset(rule, readSubsetState(db, rule, "p1"), undefined, true);
  if (plan.outcome === "writes") db.apply(plan.writes);
  return plan;
}

void test("unsettled, a push past the threshold is trimmed of reviews in the full set, and nothing is copied", () => {
  const db = reviewsDb();
  db.insertOne("products", { _id: "p1", reviews: range(1, 10).map((id) => review(id)) });
  correct(db);
  db.updateOne("products", { _id: "p1" }, { $push: { reviews: { $each: [review(11)] } } });
  const plan = correctUnsettled(db);
  assert.equal(plan.outcome === "writes" && plan.kind, "trimmed");
  assert.deepEqual(embeddedIds(db), range(2, 11).reverse());
  assert.deepEqual(fullSetIds(db), range(1, 10));
  correct(db);
  assert.deepEqual(fullSetIds(db), range(1, 11), "copied once settled");
});

void test("unsettled, a review not in the full set that would be trimmed keeps the product as it is", () => {
  const db = reviewsDb();
  // Review 1, the oldest, was never copied: trimming it now would lose it.
  db.insertOne("products", { _id: "p1", reviews: range(1, 11).map((id) => review(id)) });
  db.apply(
    range(2, 11).map((id) => ({
      op: "insertOne" as const,
      collection: "reviews",
      document: { ...review(id), product_id: "p1" },
    })),
  );
  assert.deepEqual(correctUnsettled(db), { outcome: "none" });
  assert.equal(embeddedIds(db).length, 11);
});
