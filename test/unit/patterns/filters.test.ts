// The change-stream filters, evaluated with mingo over events shaped like MongoDB's.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { Query } from "mingo";
import { bucketEventNeedsCorrection, bucketNeedsCorrection } from "../../../src/patterns/bucket/filters.js";
import {
  outlierEventNeedsCorrection,
  outlierNeedsCorrection,
} from "../../../src/patterns/outlier/filters.js";
import { subsetEventNeedsCorrection, subsetNeedsCorrection } from "../../../src/patterns/subset/filters.js";
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

/** An update event as the stream delivers it without a post-image. */
const described = (updatedFields: Document, removedFields: string[] = []) => ({
  operationType: "update",
  updateDescription: { updatedFields, removedFields, truncatedArrays: [] },
});

void test("a push that sets a book's 51st purchaser passes the outlier event filter; one that sets the 50th does not", () => {
  const filter = outlierEventNeedsCorrection(outlierRule);
  assert.equal(passes(filter, described({ "customers_purchased.50": "u" })), true);
  assert.equal(passes(filter, described({ "customers_purchased.49": "u", title: "t" })), false);
  assert.equal(passes(filter, described({ title: "t" })), false);
});

void test("a book's purchasers rewritten whole pass the outlier event filter when longer than 50 or no array", () => {
  const filter = outlierEventNeedsCorrection(outlierRule);
  assert.equal(passes(filter, described({ customers_purchased: users(0, 51) })), true);
  assert.equal(passes(filter, described({ customers_purchased: users(0, 50) })), false);
  assert.equal(passes(filter, described({ customers_purchased: "x" })), true);
});

void test("an inserted book past the threshold passes the outlier event filter", () => {
  const filter = outlierEventNeedsCorrection(outlierRule);
  const insert = (n: number) => ({
    operationType: "insert",
    fullDocument: { customers_purchased: users(0, n) },
  });
  assert.equal(passes(filter, insert(51)), true);
  assert.equal(passes(filter, insert(50)), false);
});

void test("a trade pushed with its count passes the bucket event filter only past the threshold", () => {
  const filter = bucketEventNeedsCorrection(bucketRule);
  assert.equal(passes(filter, described({ "history.2": {}, count: 3 })), false);
  assert.equal(passes(filter, described({ "history.10": {}, count: 11 })), true);
  assert.equal(passes(filter, described({ history: [{}, {}], count: 2 })), false);
});

void test("a trade pushed without its count, or a count set alone, passes the bucket event filter", () => {
  const filter = bucketEventNeedsCorrection(bucketRule);
  assert.equal(passes(filter, described({ "history.2": {} })), true);
  assert.equal(passes(filter, described({ count: 4 })), true);
  assert.equal(passes(filter, described({ note: "x" })), false);
});

void test("an update touching a product's reviews passes the subset event filter; one touching its price does not", () => {
  const filter = subsetEventNeedsCorrection(subsetRule);
  assert.equal(passes(filter, described({ "reviews.1": { review_id: 2 } })), true);
  assert.equal(passes(filter, described({ reviews: [] })), true);
  assert.equal(passes(filter, described({}, ["reviews"])), true);
  assert.equal(passes(filter, described({ price: 3 })), false);
  assert.equal(passes(filter, { operationType: "insert", fullDocument: { name: "new" } }), true);
});

void test("swept products pass the subset document filter when they embed reviews", () => {
  const filter = subsetNeedsCorrection(subsetRule);
  assert.equal(
    passes(filter, { operationType: "update", fullDocument: { reviews: [{ review_id: 1 }] } }),
    true,
  );
  assert.equal(passes(filter, { operationType: "update", fullDocument: { reviews: [] } }), false);
});
