import assert from "node:assert/strict";
import { test } from "node:test";
import type { Document } from "bson";
import { ReadView } from "../../../src/storage/read-view.js";
import { StoredCollection, documentKey } from "../../../src/storage/stored-collection.js";

/** A collection with one secondary index `key`, holding `docs` inserted in that order. */
function indexed(key: Document, docs: Document[]): StoredCollection {
  const collection = new StoredCollection("db", "c");
  collection.addIndex({ name: "i", key, unique: false, options: {} });
  docs.forEach((doc, i) => collection.write(documentKey(doc._id), doc, BigInt(i + 1), undefined));
  return collection;
}

function found(collection: StoredCollection, filter: Document, view = new ReadView()): unknown[] {
  return view.find(collection, filter).map((v) => v.doc._id);
}

const chunks = [
  { _id: "c", book: 7, seq: 2 },
  { _id: "a", book: 7, seq: 0 },
  { _id: "b", book: 7, seq: 1 },
];

void test("an index lookup returns documents in the index's key order, not insertion order", () => {
  assert.deepEqual(found(indexed({ book: 1, seq: 1 }, chunks), { book: 7 }), ["a", "b", "c"]);
});

void test("an index lookup keeps the index's key order after the first document is updated", () => {
  const collection = indexed({ book: 1, seq: 1 }, chunks);
  collection.write(documentKey("a"), { _id: "a", book: 7, seq: 0, pushed: 1 }, 10n, undefined);
  collection.write(documentKey("b"), { _id: "b", book: 7, seq: 1, pushed: 1 }, 11n, undefined);
  assert.deepEqual(found(collection, { book: 7 }), ["a", "b", "c"]);
});

void test("a descending field orders its values from the largest", () => {
  assert.deepEqual(found(indexed({ book: 1, seq: -1 }, chunks), { book: 7 }), ["c", "b", "a"]);
});

void test("documents with equal keys come in RecordId order, which updates do not change", () => {
  const collection = indexed({ book: 1 }, chunks);
  collection.write(documentKey("c"), { _id: "c", book: 7, seq: 9 }, 10n, undefined);
  assert.deepEqual(found(collection, { book: 7 }), ["c", "a", "b"]);
});

void test("a $in on the first field yields its values in the field's direction", () => {
  const docs = [
    { _id: 1, book: 9 },
    { _id: 2, book: 3 },
    { _id: 3, book: 5 },
  ];
  assert.deepEqual(found(indexed({ book: 1 }, docs), { book: { $in: [9, 3, 5] } }), [2, 3, 1]);
  assert.deepEqual(found(indexed({ book: -1 }, docs), { book: { $in: [3, 9, 5] } }), [1, 3, 2]);
});

void test("a multikey first field orders a document by the looked-up value it holds", () => {
  const docs = [
    { _id: 1, tags: [0, 5] },
    { _id: 2, tags: [3, 7] },
    { _id: 3, tags: 5 },
  ];
  assert.deepEqual(found(indexed({ tags: 1 }, docs), { tags: { $in: [5, 7] } }), [1, 3, 2]);
});

void test("a multikey later field orders a document by its smallest value, or largest descending", () => {
  const docs = [
    { _id: 1, book: 7, seq: [4, 1] },
    { _id: 2, book: 7, seq: 2 },
  ];
  assert.deepEqual(found(indexed({ book: 1, seq: 1 }, docs), { book: 7 }), [1, 2]);
  assert.deepEqual(found(indexed({ book: 1, seq: -1 }, docs), { book: 7 }), [1, 2]);
  assert.deepEqual(
    found(indexed({ book: 1, seq: -1 }, [docs[1]!, { _id: 1, book: 7, seq: [1, 0] }]), { book: 7 }),
    [2, 1],
  );
});

void test("an _id $in returns documents in _id order", () => {
  const collection = indexed({ book: 1 }, [{ _id: 3 }, { _id: 1 }, { _id: 2 }]);
  assert.deepEqual(found(collection, { _id: { $in: [2, 3, 1] } }), [1, 2, 3]);
});

void test("a snapshot reader orders by the versions it sees", () => {
  const collection = indexed({ book: 1, seq: 1 }, chunks);
  collection.write(documentKey("a"), { _id: "a", book: 7, seq: 5 }, 10n, 5n);
  assert.deepEqual(found(collection, { book: 7 }, new ReadView(5n)), ["a", "b", "c"]);
  assert.deepEqual(found(collection, { book: 7 }), ["b", "c", "a"]);
});

void test("a transaction's own writes are ordered with the committed documents", () => {
  const collection = indexed({ book: 1 }, chunks);
  const overlay = new Map<string, Document | null>([
    [documentKey("d"), { _id: "d", book: 7 }],
    [documentKey("a"), { _id: "a", book: 7, seq: 0, pushed: 1 }],
  ]);
  assert.deepEqual(found(collection, { book: 7 }, new ReadView(3n, () => overlay)), ["c", "a", "b", "d"]);
});
