import assert from "node:assert/strict";
import { test } from "node:test";
import { Int32, Long } from "bson";
import { planLookup } from "../../../src/storage/candidate-keys.js";
import { canonicalKey } from "../../../src/storage/canonical-key.js";
import { StoredCollection, documentKey } from "../../../src/storage/stored-collection.js";

/** The documents the planner would visit, or undefined for a scan. */
const candidateKeys = (...args: Parameters<typeof planLookup>) => planLookup(...args)?.keys;

function collectionOf(docs: { _id: unknown; [field: string]: unknown }[]): StoredCollection {
  const collection = new StoredCollection("db", "c");
  docs.forEach((doc, i) => collection.write(documentKey(doc._id), doc, BigInt(i + 1), undefined));
  return collection;
}

void test("1, 1.0, Int32(1) and Long(1) share one canonical key", () => {
  const keys = new Set([
    canonicalKey(1),
    canonicalKey(1.0),
    canonicalKey(new Int32(1)),
    canonicalKey(Long.fromNumber(1)),
  ]);
  assert.equal(keys.size, 1);
});

void test("embedded documents with fields in another order have different keys", () => {
  assert.notEqual(canonicalKey({ a: 1, b: 2 }), canonicalKey({ b: 2, a: 1 }));
});

void test("an _id equality names exactly one candidate", () => {
  const collection = collectionOf([{ _id: 1 }, { _id: 2 }]);
  assert.deepEqual(candidateKeys(collection, { _id: 2 }), new Set([documentKey(2)]));
});

void test("an _id $in names one candidate per value", () => {
  const collection = collectionOf([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
  assert.equal(candidateKeys(collection, { _id: { $in: [1, 3] } })?.size, 2);
});

void test("an _id regex cannot use the index and scans", () => {
  const collection = collectionOf([{ _id: "123_1" }]);
  assert.equal(candidateKeys(collection, { _id: /^123_/ }), undefined);
});

void test("an equality on an indexed field's prefix narrows to the documents holding the value", () => {
  const collection = collectionOf([
    { _id: 1, k: 5, j: 1 },
    { _id: 2, k: 6, j: 1 },
    { _id: 3, k: [4, 5], j: 2 },
  ]);
  collection.addIndex({ name: "k_1_j_1", key: { k: 1, j: 1 }, unique: false, options: {} });
  assert.deepEqual(candidateKeys(collection, { k: 5, j: 1 }), new Set([documentKey(1), documentKey(3)]));
});

void test("an equality inside $and uses the index too", () => {
  const collection = collectionOf([{ _id: 1 }, { _id: 2 }]);
  assert.deepEqual(candidateKeys(collection, { $and: [{ x: 1 }, { _id: 1 }] }), new Set([documentKey(1)]));
});

void test("a filter on an unindexed field scans", () => {
  const collection = collectionOf([{ _id: 1, z: 1 }]);
  assert.equal(candidateKeys(collection, { z: 1 }), undefined);
});

void test("a collated string equality does not use the binary-keyed _id or secondary index", () => {
  const collection = collectionOf([{ _id: "a", k: "x" }]);
  collection.addIndex({ name: "k_1", key: { k: 1 }, unique: false, options: {} });
  assert.equal(candidateKeys(collection, { _id: "A" }, true), undefined);
  assert.equal(candidateKeys(collection, { k: { $in: ["X", 1] } }, true), undefined);
  assert.equal(candidateKeys(collection, { _id: { sub: "A" } }, true), undefined);
});

void test("a collated equality on values without strings still uses the index", () => {
  const collection = collectionOf([{ _id: 1 }, { _id: 2 }]);
  assert.deepEqual(candidateKeys(collection, { _id: 2 }, true), new Set([documentKey(2)]));
});
