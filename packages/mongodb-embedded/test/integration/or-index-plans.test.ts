// A top-level $or whose every branch an index bounds is answered branch by branch through the
// indexes and the results united without duplicates, as mongod's subplanner and OR stage do;
// one unindexable branch makes the whole read a collection scan.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Collection, Document } from "mongodb";
import { summarizeExplain } from "../support/explain.js";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_or_plans");

const BOOKS = 50;
const CHUNKS = 20;

/** BOOKS books of CHUNKS chunks each, under the index {book_id: 1, seq: 1}. */
async function chunkCollection(name: string): Promise<Collection> {
  const collection = fixture.db.collection(name);
  await collection.createIndex({ book_id: 1, seq: 1 });
  const docs: Document[] = [];
  for (let book = 0; book < BOOKS; book++)
    for (let seq = 0; seq < CHUNKS; seq++) docs.push({ _id: `${book}:${seq}`, book_id: book, seq });
  await collection.insertMany(docs);
  return collection;
}

const idsOf = (docs: Document[]) => docs.map((doc) => String(doc._id)).sort();

void test("each branch of a top-level $or is read through its index, each document once", async () => {
  const collection = await chunkCollection("or_branches");
  // The second branch lies inside the first: the union must not return its documents twice.
  const filter: Document = {
    $or: [
      { book_id: 3 },
      { book_id: 3, seq: { $lt: 2 } },
      { _id: "40:7" },
      { book_id: { $in: [9, 11] }, seq: 0 },
    ],
  };
  const explained = summarizeExplain(await collection.find(filter).explain("executionStats"));
  assert.equal(explained.stages.includes("COLLSCAN"), false, `stages ${explained.stages.join(", ")}`);
  assert.ok(explained.stages.includes("OR"));
  assert.equal(explained.nReturned, CHUNKS + 3);
  // Each branch examines its own keys only: 20 + 2 + 1 + 2, not the collection's 1,000.
  assert.ok(explained.keysExamined <= 30, `examined ${explained.keysExamined} keys`);
  assert.ok(explained.docsExamined <= 30, `examined ${explained.docsExamined} documents`);
  const found = await collection.find(filter).toArray();
  const expected = [...Array.from({ length: CHUNKS }, (_, seq) => `3:${seq}`), "40:7", "9:0", "11:0"];
  assert.deepEqual(idsOf(found), expected.sort());
});

void test("an $or beside other fields is planned per branch with those fields, sorted and limited", async () => {
  const collection = await chunkCollection("or_with_and");
  const filter = { seq: { $gte: 5 }, $or: [{ book_id: 1 }, { book_id: 2, seq: { $lt: 8 } }] };
  const explained = summarizeExplain(await collection.find(filter).explain("executionStats"));
  assert.equal(explained.stages.includes("COLLSCAN"), false, `stages ${explained.stages.join(", ")}`);
  assert.ok(explained.keysExamined <= CHUNKS + 5, `examined ${explained.keysExamined} keys`);
  const found = await collection.find(filter).sort({ seq: -1, _id: 1 }).limit(3).toArray();
  assert.deepEqual(idsOf(found), ["1:18", "1:19", "1:17"].sort());
});

void test("an $or with a branch no index bounds scans the collection and still finds every match", async () => {
  const collection = await chunkCollection("or_unindexed");
  const filter = { $or: [{ book_id: 4, seq: 0 }, { seq: 19 }] };
  const explained = summarizeExplain(await collection.find(filter).explain("executionStats"));
  assert.ok(explained.stages.includes("COLLSCAN"));
  assert.equal((await collection.find(filter).toArray()).length, 1 + BOOKS);
});

void test("a transaction's $or read sees its own writes and its snapshot, not later commits", async () => {
  const collection = await chunkCollection("or_in_transaction");
  const session = fixture.mongo.client.startSession();
  try {
    session.startTransaction();
    const filter: Document = { $or: [{ book_id: 5 }, { _id: "new" }] };
    assert.equal((await collection.find(filter, { session }).toArray()).length, CHUNKS);
    await collection.insertOne({ _id: "new" as never, book_id: 99, seq: 0 }, { session });
    await collection.deleteOne({ _id: "5:0" as never }, { session });
    await collection.updateOne({ _id: "6:0" as never }, { $set: { book_id: 5 } }, { session });
    // Committed outside the transaction, after its snapshot: not seen inside it.
    await collection.insertOne({ _id: "5:late" as never, book_id: 5, seq: 99 });
    const inside = await collection.find(filter, { session }).toArray();
    const expected = [...Array.from({ length: CHUNKS - 1 }, (_, i) => `5:${i + 1}`), "6:0", "new"];
    assert.deepEqual(idsOf(inside), expected.sort());
    await session.abortTransaction();
  } finally {
    await session.endSession();
  }
});
