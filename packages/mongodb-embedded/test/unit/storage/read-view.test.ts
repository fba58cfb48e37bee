import assert from "node:assert/strict";
import { test } from "node:test";
import { collatorFor } from "../../../src/query/index.js";
import { ReadView } from "../../../src/storage/read-view.js";
import { StoredCollection, documentKey } from "../../../src/storage/stored-collection.js";

void test("a snapshot reader sees the version committed before its snapshot", () => {
  const collection = new StoredCollection("db", "c");
  collection.write(documentKey(1), { _id: 1, v: "old" }, 10n, undefined);
  collection.write(documentKey(1), { _id: 1, v: "new" }, 20n, 15n);
  assert.equal(new ReadView(15n).get(collection, documentKey(1))?.v, "old");
  assert.equal(new ReadView().get(collection, documentKey(1))?.v, "new");
});

void test("a document deleted after the snapshot is still visible to it", () => {
  const collection = new StoredCollection("db", "c");
  collection.write(documentKey(1), { _id: 1 }, 10n, undefined);
  collection.write(documentKey(1), null, 20n, 15n);
  assert.equal(new ReadView(15n).find(collection, { _id: 1 }).length, 1);
  assert.equal(new ReadView().find(collection, { _id: 1 }).length, 0);
});

void test("an index lookup at a snapshot finds a document whose indexed value changed since", () => {
  const collection = new StoredCollection("db", "c");
  collection.addIndex({ name: "k_1", key: { k: 1 }, unique: false, options: {} });
  collection.write(documentKey(1), { _id: 1, k: "a" }, 10n, undefined);
  collection.write(documentKey(1), { _id: 1, k: "b" }, 20n, 15n);
  assert.deepEqual(
    new ReadView(15n).find(collection, { k: "a" }).map((v) => v.doc._id),
    [1],
  );
});

void test("a reader's own uncommitted writes overlay the snapshot", () => {
  const collection = new StoredCollection("db", "c");
  collection.write(documentKey(1), { _id: 1, v: 1 }, 10n, undefined);
  const overlay = new Map([[documentKey(2), { _id: 2, v: 2 }]]);
  const view = new ReadView(10n, () => overlay);
  assert.deepEqual(
    view.find(collection).map((v) => v.doc._id),
    [1, 2],
  );
});

void test("old versions are dropped once no snapshot needs them", () => {
  const collection = new StoredCollection("db", "c");
  collection.write(documentKey(1), { _id: 1, v: 1 }, 10n, undefined);
  collection.write(documentKey(1), { _id: 1, v: 2 }, 20n, undefined);
  assert.equal(collection.read(documentKey(1), 15n), null);
});

void test("a collated lookup on an indexed field finds values that differ only in case", () => {
  const collection = new StoredCollection("db", "c");
  collection.addIndex({ name: "k_1", key: { k: 1 }, unique: false, options: {} });
  collection.write(documentKey(1), { _id: 1, k: "Ping" }, 10n, undefined);
  collection.write(documentKey(2), { _id: 2, k: "pong" }, 11n, undefined);
  const caseInsensitive = collatorFor({ locale: "en", strength: 2 });
  assert.deepEqual(
    new ReadView().find(collection, { k: "PING" }, caseInsensitive).map((v) => v.doc._id),
    [1],
  );
  assert.equal(new ReadView().find(collection, { k: "PING" }).length, 0);
});
