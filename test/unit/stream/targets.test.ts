import { test } from "node:test";
import assert from "node:assert/strict";
import { BSON, Long } from "mongodb";
import { configSchema, type Config } from "../../../src/config/schema.js";
import { targetKey, targetsForEvent } from "../../../src/stream/events/targets.js";
import { numbersByValue } from "../../../src/patterns/bson/bson-value.js";

const { rules } = configSchema.parse({}) as Config;

function event(coll: string, id: unknown, fullDocument?: Record<string, unknown>) {
  return {
    _id: { _data: "00" },
    operationType: "update",
    ns: { db: "shop", coll },
    // As the stream hands it over (watch-pipeline.ts): undecoded, in an array.
    documentKeyRaw: [BSON.serialize({ _id: id })],
    fullDocument,
  };
}

void test("an event on sales asks for an outlier correction of that book", () => {
  const targets = targetsForEvent(rules, event("sales", 2));
  assert.deepEqual(
    targets.map((t) => [t.role, t.collection, numbersByValue(t.id)]),
    [["source", "sales", 2]],
  );
});

void test("an event on an overflow document asks for a split of that chunk", () => {
  const targets = targetsForEvent(rules, event("extra_sales", "chunk-1"));
  assert.deepEqual(
    targets.map((t) => [t.role, numbersByValue(t.id)]),
    [["chunk", "chunk-1"]],
  );
});

void test("a review written to the full set asks for a correction of its product", () => {
  const targets = targetsForEvent(rules, event("reviews", "r1", { product_id: 9 }));
  assert.deepEqual(
    targets.map((t) => [t.role, t.collection, numbersByValue(t.id)]),
    [["source", "products", 9]],
  );
});

void test("a review and a push to its product share one ordering key", () => {
  const [fromReview] = targetsForEvent(rules, event("reviews", "r1", { product_id: 9 }));
  const [fromProduct] = targetsForEvent(rules, event("products", 9));
  assert.equal(targetKey(fromReview!), targetKey(fromProduct!));
});

void test("a review without a product reference asks for nothing", () => {
  assert.deepEqual(targetsForEvent(rules, event("reviews", "r1", {})), []);
});

void test("an id read verbatim orders with the same id read promoted, under the key it had before", () => {
  const [fromEvent] = targetsForEvent(rules, event("sales", Long.fromNumber(5)));
  // A sweep reads ids promoted: the same book as a JS number. Parked targets store the key.
  const fromSweep = { ...fromEvent!, id: 5 };
  assert.ok(fromEvent!.id instanceof Long, "the event's id keeps its type");
  assert.equal(targetKey(fromEvent!), targetKey(fromSweep));
  assert.equal(targetKey(fromSweep), 'sales.customers_purchased|sales|{"id":{"$numberInt":"5"}}');
});

void test("ordering keys tell apart ids that print alike", () => {
  const [numeric] = targetsForEvent(rules, event("sales", 1));
  const [text] = targetsForEvent(rules, event("sales", "1"));
  assert.notEqual(targetKey(numeric!), targetKey(text!));
});

function deleteEvent(coll: string, id: unknown, fullDocumentBeforeChange?: Record<string, unknown> | null) {
  return { ...event(coll, id), operationType: "delete", fullDocumentBeforeChange };
}

void test("a review deleted from the full set asks for its product, carrying the entry, under the product's key", () => {
  const [fromDelete] = targetsForEvent(rules, deleteEvent("reviews", "r1", { product_id: 9, review_id: 4 }));
  const [fromProduct] = targetsForEvent(rules, event("products", 9));
  assert.deepEqual(
    [fromDelete?.role, fromDelete?.collection, numbersByValue(fromDelete?.id), fromDelete?.detail],
    ["deleted-entry", "products", 9, { entryId: 4, deletedId: "r1" }],
  );
  assert.equal(targetKey(fromDelete!), targetKey(fromProduct!));
});

void test("a review deleted without a pre-image asks only to be reported, keyed by the deleted document", () => {
  for (const preImage of [undefined, null]) {
    const targets = targetsForEvent(rules, deleteEvent("reviews", "r1", preImage));
    assert.deepEqual(
      targets.map((t) => [t.role, t.collection, numbersByValue(t.id), t.detail]),
      [["delete-without-pre-image", "reviews", "r1", undefined]],
    );
  }
});

/** An update of a review, as the stream shows it without a post-image. */
function reviewUpdate(
  preImage: Record<string, unknown> | undefined,
  fieldsSet: Record<string, unknown> = {},
  fieldsRemoved: string[] = [],
) {
  const set = Object.entries(fieldsSet).map(([k, v]) => ({ k, v }));
  return { ...event("reviews", "r1"), fullDocumentBeforeChange: preImage, fieldsSet: set, fieldsRemoved };
}

const shown = (e: ReturnType<typeof reviewUpdate>) =>
  targetsForEvent(rules, e).map((t) => [t.role, t.collection, numbersByValue(t.id)]);

void test("a review's update names its product by the reference it set, or else by its pre-image", () => {
  assert.deepEqual(shown(reviewUpdate({ product_id: 9, review_id: 4 })), [["source", "products", 9]]);
  assert.deepEqual(shown(reviewUpdate({ product_id: 9, review_id: 4 }, { product_id: 9 })), [
    ["source", "products", 9],
  ]);
});

void test("a review moved by an update asks for its new product, and for the old one to drop it", () => {
  const moved = targetsForEvent(rules, reviewUpdate({ product_id: 9, review_id: 4 }, { product_id: 10 }));
  assert.deepEqual(
    moved.map((t) => [t.role, numbersByValue(t.id)]),
    [
      ["source", 10],
      ["deleted-entry", 9],
    ],
  );
  const unset = targetsForEvent(rules, reviewUpdate({ product_id: 9, review_id: 4 }, {}, ["product_id"]));
  assert.deepEqual(
    unset.map((t) => [t.role, numbersByValue(t.id)]),
    [["deleted-entry", 9]],
  );
});

void test("a review's update that shows no product, without a pre-image, is corrected from the review", () => {
  assert.deepEqual(shown(reviewUpdate(undefined)), [["entry", "reviews", "r1"]]);
});

void test("a review deleted under a rule that does not propagate deletes asks for nothing", () => {
  const quiet = rules.map((rule) =>
    rule.pattern === "subset" ? { ...rule, propagateDeletes: false } : rule,
  );
  assert.deepEqual(targetsForEvent(quiet, deleteEvent("reviews", "r1", { product_id: 9, review_id: 4 })), []);
});

void test("an outlier event marks its own document due, so its correction reads only in the transaction", () => {
  assert.deepEqual(
    targetsForEvent(rules, event("sales", 2)).map((t) => t.due),
    [true],
  );
});

/** An update event that set `positions` of its document's array by index, as a `$push` does. */
function pushEvent(coll: string, id: unknown, ...positions: string[]) {
  const positionsSet = positions.map((k) => BSON.serialize({ k, v: {} }));
  return { ...event(coll, id), positionsSet };
}

void test("a push past the threshold marks its bucket or product due; one within it does not", () => {
  const dueOf = (e: ReturnType<typeof pushEvent>) => targetsForEvent(rules, e).map((t) => t.due);
  assert.deepEqual(dueOf(pushEvent("trades", "c_1", "history.10")), [true]);
  assert.deepEqual(dueOf(pushEvent("products", 7, "reviews.10")), [true]);
  assert.deepEqual(dueOf(pushEvent("trades", "c_1", "history.9")), [undefined]);
  assert.deepEqual(dueOf(pushEvent("products", 7, "reviews.9")), [undefined]);
});

void test("a target other than the written document is not marked due", () => {
  assert.deepEqual(
    targetsForEvent(rules, event("reviews", "r1", { product_id: 9 })).map((t) => t.due),
    [undefined],
  );
});

void test("an event of a collection two rules watch marks no target due", () => {
  const second = { ...rules.find((rule) => rule.collection === "sales")!, name: "sales-again" };
  const targets = targetsForEvent([...rules, second], event("sales", 2));
  assert.equal(targets.length, 2);
  assert.deepEqual(
    targets.map((t) => t.due),
    [undefined, undefined],
  );
});

void test("an event without a document key (a collection dropped) asks for no correction", () => {
  const dropped = { _id: { _data: "00" }, operationType: "drop", ns: { db: "shop", coll: "sales" } };
  // The stream's projection makes the missing key a null in its array (watch-pipeline.ts).
  assert.deepEqual(targetsForEvent(rules, { ...dropped, documentKeyRaw: [null] }), []);
});
