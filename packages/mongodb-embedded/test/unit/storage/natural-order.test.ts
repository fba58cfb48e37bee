import assert from "node:assert/strict";
import { test } from "node:test";
import { ReadView } from "../../../src/storage/read-view.js";
import { StoredCollection, documentKey } from "../../../src/storage/stored-collection.js";

function ids(collection: StoredCollection, view = new ReadView()): unknown[] {
  return view.find(collection).map((v) => v.doc._id);
}

void test("a scan returns documents in insertion order however often they are updated", () => {
  const collection = new StoredCollection("db", "c");
  for (const [i, id] of [3, 1, 2].entries())
    collection.write(documentKey(id), { _id: id, v: 0 }, BigInt(i + 1), undefined);
  collection.write(documentKey(3), { _id: 3, v: 1 }, 10n, undefined);
  collection.write(documentKey(1), { _id: 1, v: 1 }, 11n, undefined);
  assert.deepEqual(ids(collection), [3, 1, 2]);
});

void test("an update keeps the document's RecordId", () => {
  const collection = new StoredCollection("db", "c");
  collection.write(documentKey(1), { _id: 1, v: 0 }, 1n, undefined);
  const before = collection.recordId(documentKey(1));
  collection.write(documentKey(1), { _id: 1, v: 1 }, 2n, undefined);
  assert.equal(collection.recordId(documentKey(1)), before);
});

void test("a deleted _id inserted again goes to the end of the natural order", () => {
  const collection = new StoredCollection("db", "c");
  for (const [i, id] of [1, 2, 3].entries())
    collection.write(documentKey(id), { _id: id }, BigInt(i + 1), undefined);
  collection.write(documentKey(1), null, 10n, undefined);
  collection.write(documentKey(1), { _id: 1 }, 11n, undefined);
  assert.deepEqual(ids(collection), [2, 3, 1]);
});

void test("a deleted _id inserted again moves to the end while a snapshot still holds its old version", () => {
  const collection = new StoredCollection("db", "c");
  for (const [i, id] of [1, 2, 3].entries())
    collection.write(documentKey(id), { _id: id }, BigInt(i + 1), undefined);
  collection.write(documentKey(1), null, 10n, 5n);
  collection.write(documentKey(1), { _id: 1 }, 11n, 5n);
  assert.deepEqual(ids(collection), [2, 3, 1]);
  assert.ok(collection.recordId(documentKey(1))! > collection.recordId(documentKey(3))!);
});

void test("a snapshot reader sees the RecordId of the version it reads", () => {
  const collection = new StoredCollection("db", "c");
  collection.write(documentKey(1), { _id: 1 }, 1n, undefined);
  const old = collection.recordId(documentKey(1));
  collection.write(documentKey(1), null, 10n, 5n);
  collection.write(documentKey(1), { _id: 1 }, 11n, 5n);
  assert.equal(collection.recordId(documentKey(1), 5n), old);
  assert.equal(collection.recordId(documentKey(1), 10n), undefined);
});
