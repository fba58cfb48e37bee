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

void test("a version kept for an open snapshot is dropped once the snapshot is released, with no later write", () => {
  const collection = new StoredCollection("db", "c");
  collection.write(documentKey(1), { _id: 1, v: 1 }, 10n, undefined);
  collection.write(documentKey(1), { _id: 1, v: 2 }, 20n, 15n);
  collection.write(documentKey(2), { _id: 2, v: 1 }, 30n, 25n);
  assert.equal(collection.read(documentKey(1), 15n)?.v, 1, "kept while the snapshot at 15 is open");
  collection.forgetWritesUpTo(25n);
  assert.equal(collection.read(documentKey(1), 15n), null, "gone once 25 is the oldest snapshot");
  assert.equal(collection.read(documentKey(1), 25n)?.v, 2);
  assert.equal(collection.read(documentKey(2), 25n), null, "written after 25: still not visible at 25");
  assert.equal(collection.read(documentKey(2))?.v, 1);
  collection.forgetWritesUpTo(undefined);
  assert.equal(collection.read(documentKey(2))?.v, 1);
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

void test("an index scan at a snapshot reads the changed documents its bounds may hold, and only those", () => {
  const collection = new StoredCollection("db", "c");
  collection.addIndex({ name: "k_1", key: { k: 1 }, unique: false, options: {} });
  for (let id = 1; id <= 3; id++) collection.write(documentKey(id), { _id: id, k: id * 10 }, 10n, undefined);
  // After the snapshot: 1 leaves the range, 3 enters it; the index only knows the new keys.
  collection.write(documentKey(1), { _id: 1, k: 99 }, 20n, 15n);
  collection.write(documentKey(3), { _id: 3, k: 15 }, 21n, 15n);
  // The reader's own write moves 2 out of the range.
  const overlay = new Map([[documentKey(2), { _id: 2, k: 50 }]]);
  const view = new ReadView(15n, () => overlay);
  const result = view.query(collection, { filter: { k: { $lte: 20 } }, sort: { k: 1 } });
  assert.deepEqual(
    result.found.map((v) => v.doc._id),
    [1],
  );
  // Of the three changed documents, 1 (k 10 at the snapshot) lies in the bounds; 2 and 3 do not.
  assert.equal(result.docsExamined, 1);
});

void test("a scan of _id points at a snapshot finds a point's changed version without reading other changed documents", () => {
  const collection = new StoredCollection("db", "c");
  for (let id = 1; id <= 50; id++) collection.write(documentKey(id), { _id: id, v: 0 }, 10n, undefined);
  for (let id = 1; id <= 50; id++) collection.write(documentKey(id), null, 20n, 15n);
  const overlay = new Map([[documentKey(7), { _id: 7, v: 1 }]]);
  const result = new ReadView(15n, () => overlay).query(collection, {
    filter: { _id: { $in: [7, 8] } },
    sort: { _id: 1 },
  });
  assert.deepEqual(
    result.found.map((v) => v.doc),
    [
      { _id: 7, v: 1 },
      { _id: 8, v: 0 },
    ],
  );
  assert.equal(result.docsExamined, 2);
});

void test("an _id lookup at a snapshot reads its own keys only, whatever else changed since", () => {
  // A document value has no index bounds: the read is a lookup of the _id's canonical keys.
  const collection = new StoredCollection("db", "c");
  const id = (n: number) => ({ copied: n });
  for (let n = 1; n <= 20; n++) collection.write(documentKey(id(n)), { _id: id(n), v: 0 }, 10n, undefined);
  for (let n = 1; n <= 20; n++) collection.write(documentKey(id(n)), { _id: id(n), v: 1 }, 20n, 15n);
  const overlay = new Map([
    [documentKey(id(3)), null],
    [documentKey(id(21)), { _id: id(21), v: 2 }],
  ]);
  const view = new ReadView(15n, () => overlay);
  const read = (filter: object) => view.query(collection, { filter });
  const seven = read({ _id: id(7) });
  assert.deepEqual(
    seven.found.map((v) => v.doc),
    [{ _id: id(7), v: 0 }],
  );
  assert.equal(seven.path.stage, "IXSCAN");
  assert.equal(seven.docsExamined, 1, "none of the other 19 documents committed since the snapshot");
  assert.deepEqual(read({ _id: id(3) }).found, [], "deleted by the reader itself");
  assert.deepEqual(
    read({ _id: { $in: [id(21), id(22)] } }).found.map((v) => v.doc),
    [{ _id: id(21), v: 2 }],
  );
});

void test("a secondary lookup at a snapshot reads the changed documents whose seen version it could yield", () => {
  const collection = new StoredCollection("db", "c");
  collection.addIndex({ name: "k_1", key: { k: 1 }, unique: false, options: {} });
  const wanted = { x: 1 };
  const other = { x: 2 };
  for (let n = 1; n <= 4; n++)
    collection.write(documentKey(n), { _id: n, k: n === 1 ? wanted : other }, 10n, undefined);
  // After the snapshot: 1 leaves the value, 2 takes it; the index only knows the new values.
  collection.write(documentKey(1), { _id: 1, k: other }, 20n, 15n);
  collection.write(documentKey(2), { _id: 2, k: wanted }, 21n, 15n);
  collection.write(documentKey(4), { _id: 4, k: other, touched: true }, 22n, 15n);
  // The reader's own write gives 3 the value.
  const overlay = new Map([[documentKey(3), { _id: 3, k: wanted }]]);
  const result = new ReadView(15n, () => overlay).query(collection, { filter: { k: wanted } });
  assert.deepEqual(result.found.map((v) => v.doc._id).sort(), [1, 3]);
  // 2 is listed by the index (its latest version) and read; 1 and 3 as changed versions that
  // hold the value; 4 changed too, but no version of it this reader sees holds the value.
  assert.equal(result.docsExamined, 3);
});

void test("a snapshot reader's index scans keep its snapshot while other writes commit between them", () => {
  const collection = new StoredCollection("db", "c");
  collection.addIndex({ name: "k_1", key: { k: 1 }, unique: false, options: {} });
  collection.write(documentKey(1), { _id: 1, k: 10 }, 10n, undefined);
  collection.write(documentKey(2), { _id: 2, k: 10 }, 10n, undefined);
  const view = new ReadView(15n);
  const ids = () => view.query(collection, { filter: { k: 10 } }).found.map((v) => v.doc._id);
  collection.write(documentKey(1), { _id: 1, k: 99 }, 20n, 15n);
  assert.deepEqual(ids(), [1, 2]);
  // Committed after the first read: the index no longer holds 2 at 10 either.
  collection.write(documentKey(2), { _id: 2, k: 99 }, 30n, 15n);
  assert.deepEqual(ids(), [1, 2]);
});

void test("a scan of _id points reads them in the sort's direction and stops at the limit", () => {
  const collection = new StoredCollection("db", "c");
  for (let id = 1; id <= 5; id++) collection.write(documentKey(id), { _id: id }, 10n, undefined);
  const result = new ReadView().query(collection, {
    filter: { _id: { $in: [4, 2, 5, 9] } },
    sort: { _id: -1 },
    limit: 2,
  });
  assert.deepEqual(
    result.found.map((v) => v.doc._id),
    [5, 4],
  );
  assert.equal(result.keysExamined, 2);
});

void test("the keys written after a time are those of later commits, also once older records are forgotten", () => {
  const collection = new StoredCollection("db", "c");
  for (let id = 1; id <= 6; id++) collection.write(documentKey(id), { _id: id }, BigInt(id * 10), 5n);
  assert.deepEqual(collection.keysWrittenAfter(30n), [4, 5, 6].map(documentKey));
  collection.forgetWritesUpTo(35n);
  assert.deepEqual(collection.keysWrittenAfter(40n), [5, 6].map(documentKey));
  assert.deepEqual(collection.keysWrittenAfter(60n), []);
});

void test("a read plans with the indexes as they are now: created, dropped, or made multikey since the last read", () => {
  const collection = new StoredCollection("db", "c");
  for (let id = 1; id <= 3; id++) collection.write(documentKey(id), { _id: id, k: id }, 10n, undefined);
  const read = () => new ReadView().query(collection, { filter: { k: { $gte: 2 } }, sort: { k: 1 } });
  assert.equal(read().path.stage, "COLLSCAN");
  collection.addIndex({ name: "k_1", key: { k: 1 }, unique: false, options: {} });
  assert.equal(read().sorted, true);
  // An array makes the index multikey: its order no longer gives the sort.
  collection.write(documentKey(4), { _id: 4, k: [1, 5] }, 11n, undefined);
  assert.equal(read().sorted, false);
  collection.dropIndex("k_1");
  assert.equal(read().path.stage, "COLLSCAN");
});
