import assert from "node:assert/strict";
import { test } from "node:test";
import { ReadView } from "../../../src/storage/read-view.js";
import { StoredCollection, documentKey } from "../../../src/storage/stored-collection.js";

void test("an update that leaves the indexed fields alone keeps the document's place, and reads see the new version", () => {
  const collection = new StoredCollection("db", "c");
  collection.addIndex({ name: "book_1_seq_1", key: { book: 1, seq: 1 }, unique: false, options: {} });
  const a = { _id: "a", book: 7, seq: 0, n: 0 };
  const b = { _id: "b", book: 7, seq: 1, n: 0 };
  collection.write(documentKey("a"), a, 1n, undefined);
  collection.write(documentKey("b"), b, 2n, undefined);
  collection.write(documentKey("a"), { ...a, n: 1 }, 3n, undefined);
  const found = () => new ReadView().find(collection, { book: 7 }).map((v) => [v.doc._id, v.doc.n]);
  assert.deepEqual(found(), [
    ["a", 1],
    ["b", 0],
  ]);
  collection.write(documentKey("b"), { ...b, seq: -1 }, 4n, undefined);
  assert.deepEqual(found(), [
    ["b", 0],
    ["a", 1],
  ]);
});

void test("a sparse unique index takes in a document whose missing field an update sets to null", () => {
  const collection = new StoredCollection("db", "c");
  const index = collection.addIndex({ name: "k_1", key: { k: 1 }, unique: true, options: { sparse: true } });
  collection.write(documentKey(1), { _id: 1, k: null }, 1n, undefined);
  collection.write(documentKey(2), { _id: 2 }, 2n, undefined);
  assert.deepEqual(index.holdersOfSameKey(documentKey(1), { _id: 1, k: null }), []);
  collection.write(documentKey(2), { _id: 2, k: null }, 3n, undefined);
  assert.deepEqual(index.holdersOfSameKey(documentKey(1), { _id: 1, k: null }), [documentKey(2)]);
});
