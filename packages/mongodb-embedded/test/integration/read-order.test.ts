// The order unsorted reads and single-document writes see documents in: natural (insertion)
// order for a collection scan, the index's key order for a read answered from an index.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Collection } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

interface Chunk {
  _id: string;
  book_id: number;
  seq: number;
  pushed?: number[];
}

const fixture = useTestDatabase("server_read_order");

/** Chunks of book 7 with seq 0, 1, 2, inserted in the order 2, 0, 1, under index `key`. */
async function chunks(name: string, key: Record<string, 1 | -1>): Promise<Collection<Chunk>> {
  const collection = fixture.db.collection<Chunk>(name);
  await collection.createIndex(key);
  for (const seq of [2, 0, 1]) await collection.insertOne({ _id: `s${seq}`, book_id: 7, seq });
  return collection;
}

void test("updateOne on an index's first field always updates the document with the lowest key", async () => {
  const collection = await chunks("ascending", { book_id: 1, seq: 1 });
  for (let n = 0; n < 4; n++) await collection.updateOne({ book_id: 7 }, { $push: { pushed: n } });
  const seq0 = await collection.findOne({ _id: "s0" });
  assert.deepEqual(seq0?.pushed, [0, 1, 2, 3]);
  assert.equal((await collection.findOne({ book_id: 7 }))?.seq, 0);
});

void test("an index lookup returns documents in the index's key order", async () => {
  const collection = await chunks("listed", { book_id: 1, seq: 1 });
  await collection.updateOne({ _id: "s0" }, { $set: { pushed: [1] } });
  const found = await collection.find({ book_id: 7 }).toArray();
  assert.deepEqual(
    found.map((c) => c.seq),
    [0, 1, 2],
  );
});

void test("a descending field makes its largest value come first", async () => {
  const collection = await chunks("descending", { book_id: 1, seq: -1 });
  assert.equal((await collection.findOneAndUpdate({ book_id: 7 }, { $set: { pushed: [] } }))?.seq, 2);
  await collection.deleteOne({ book_id: 7 });
  assert.deepEqual(
    (await collection.find({ book_id: 7 }).toArray()).map((c) => c.seq),
    [1, 0],
  );
});

void test("an explicit sort still decides the order of an index lookup", async () => {
  const collection = await chunks("sorted", { book_id: 1, seq: 1 });
  const found = await collection.find({ book_id: 7 }).sort({ seq: -1 }).toArray();
  assert.deepEqual(
    found.map((c) => c.seq),
    [2, 1, 0],
  );
});

void test("a collection scan returns documents in insertion order, however often they are updated", async () => {
  const collection = await chunks("natural", { book_id: 1 });
  await collection.updateOne({ _id: "s2" }, { $set: { pushed: [1] } });
  await collection.updateOne({ _id: "s0" }, { $set: { pushed: [1] } });
  assert.deepEqual(
    (await collection.find({}).toArray()).map((c) => c._id),
    ["s2", "s0", "s1"],
  );
});

void test("a deleted document inserted again comes last in a collection scan", async () => {
  const collection = await chunks("reinserted", { book_id: 1 });
  await collection.deleteOne({ _id: "s2" });
  await collection.insertOne({ _id: "s2", book_id: 7, seq: 2 });
  assert.deepEqual(
    (await collection.find({}).toArray()).map((c) => c._id),
    ["s0", "s1", "s2"],
  );
});

void test("an _id $in returns documents in _id order", async () => {
  const collection = await chunks("by_id", { book_id: 1 });
  assert.deepEqual(
    (await collection.find({ _id: { $in: ["s1", "s2", "s0"] } }).toArray()).map((c) => c._id),
    ["s0", "s1", "s2"],
  );
});
