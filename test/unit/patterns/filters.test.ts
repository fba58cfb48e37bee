// The change-stream filters, evaluated with mingo over events shaped like MongoDB's.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { Query } from "mingo";
import { bucketNeedsCorrection } from "../../../src/patterns/bucket/filters.js";
import { outlierNeedsCorrection } from "../../../src/patterns/outlier/filters.js";
import { subsetNeedsCorrection } from "../../../src/patterns/subset/filters.js";
import { bucketRule, outlierRule, subsetRule, users } from "./support/rules.js";

function passes(filter: Document, event: Document): boolean {
  return new Query(filter).test(event);
}

const update = (fullDocument: Document, updatedFields: Document = {}, removedFields: string[] = []) => ({
  operationType: "update",
  fullDocument,
  updateDescription: { updatedFields, removedFields, truncatedArrays: [] },
});

void test("a book past the threshold passes the outlier filter and one at it does not", () => {
  const filter = outlierNeedsCorrection(outlierRule);
  assert.equal(passes(filter, update({ customers_purchased: users(0, 51) })), true);
  assert.equal(passes(filter, update({ customers_purchased: users(0, 50) })), false);
});

void test("a book whose purchasers are not an array passes the outlier filter, to be reported", () => {
  assert.equal(passes(outlierNeedsCorrection(outlierRule), update({ customers_purchased: "x" })), true);
  assert.equal(passes(outlierNeedsCorrection(outlierRule), update({ title: "no purchasers" })), false);
});

void test("a bucket past the threshold or with a wrong count passes the bucket filter", () => {
  const filter = bucketNeedsCorrection(bucketRule);
  assert.equal(passes(filter, update({ count: 11, history: Array(11).fill({}) })), true);
  assert.equal(passes(filter, update({ count: 2, history: Array(3).fill({}) })), true);
  assert.equal(passes(filter, update({ history: Array(3).fill({}) })), true);
  assert.equal(passes(filter, update({ count: 3, history: Array(3).fill({}) })), false);
});

void test("an update touching a product's reviews passes the subset filter; one touching its price does not", () => {
  const filter = subsetNeedsCorrection(subsetRule);
  const product = { reviews: [{ review_id: 1 }] };
  assert.equal(passes(filter, update(product, { "reviews.1": { review_id: 2 } })), true);
  assert.equal(passes(filter, update(product, {}, ["reviews"])), true);
  assert.equal(passes(filter, update(product, { price: 3 })), false);
});

void test("inserted products and swept products embedding reviews pass the subset filter", () => {
  const filter = subsetNeedsCorrection(subsetRule);
  assert.equal(passes(filter, { operationType: "insert", fullDocument: { name: "new" } }), true);
  assert.equal(
    passes(filter, { operationType: "update", fullDocument: { reviews: [{ review_id: 1 }] } }),
    true,
  );
  assert.equal(passes(filter, { operationType: "update", fullDocument: { reviews: [] } }), false);
});
