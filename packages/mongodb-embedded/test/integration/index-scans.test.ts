// Reads answered from an index as mongod answers them: bounded by equalities, ranges and
// anchored prefix regexes, in the index's order forwards or backwards so that no in-memory
// sort is needed; explain with executionStats reports what each read examined.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Collection, Document } from "mongodb";
import { summarizeExplain } from "../support/explain.js";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_index_scans");

/** `books` books of `chunks` chunks each, under the index {book_id: 1, seq: 1}. */
async function chunkCollection(name: string, books: number, chunks: number): Promise<Collection> {
  const collection = fixture.db.collection(name);
  await collection.createIndex({ book_id: 1, seq: 1 });
  const docs: Document[] = [];
  for (let book = 0; book < books; book++)
    for (let seq = 0; seq < chunks; seq++) docs.push({ _id: `${book}:${seq}`, book_id: book, seq });
  await collection.insertMany(docs);
  return collection;
}

async function explainFind(collection: Collection, filter: Document, sort: Document, limit = 0) {
  return summarizeExplain(await collection.find(filter).sort(sort).limit(limit).explain("executionStats"));
}

void test("the last chunk by a backward index scan examines one key whatever the number of chunks", async () => {
  const few = await chunkCollection("few_chunks", 3, 1);
  const many = await chunkCollection("many_chunks", 3, 200);
  for (const collection of [few, many]) {
    const explained = await explainFind(collection, { book_id: 1 }, { seq: -1 }, 1);
    assert.equal(explained.stages.includes("SORT"), false);
    assert.equal(explained.ixscan?.direction, "backward");
    assert.deepEqual([explained.keysExamined, explained.docsExamined, explained.nReturned], [1, 1, 1]);
  }
  assert.equal((await many.find({ book_id: 1 }).sort({ seq: -1 }).limit(1).next())?.seq, 199);
});

void test("a sort the index cannot give is done in memory, in a SORT stage", async () => {
  const collection = await chunkCollection("unindexed_sort", 2, 20);
  const explained = await explainFind(collection, { book_id: 1 }, { seq: -1, _id: -1 }, 1);
  assert.equal(explained.stages.includes("SORT"), true);
  assert.equal(explained.docsExamined, 20);
});

void test("an equality on the first field and a range on the second examine only the keys in range", async () => {
  const collection = await chunkCollection("compound_range", 3, 100);
  const filter = { book_id: 2, seq: { $gte: 10, $lt: 15 } };
  const explained = await explainFind(collection, filter, { seq: 1 });
  assert.equal(explained.stages.includes("SORT"), false);
  assert.equal(explained.nReturned, 5);
  assert.ok(explained.keysExamined <= 6, `examined ${explained.keysExamined} keys`);
  const found = await collection.find(filter).sort({ seq: 1 }).toArray();
  assert.deepEqual(
    found.map((doc) => doc.seq),
    [10, 11, 12, 13, 14],
  );
});

void test("an anchored case-sensitive prefix regex on _id is answered from the _id index's bounds", async () => {
  const collection = fixture.db.collection("prefixed");
  const docs = [];
  for (let i = 0; i < 500; i++) docs.push({ _id: `c${i % 50}_${1_700_000_000 + i}` as never });
  await collection.insertMany(docs);
  const explained = await explainFind(collection, { _id: { $regex: "^c7_" } }, {});
  assert.equal(explained.ixscan?.indexName, "_id_");
  assert.equal(explained.nReturned, 10);
  assert.ok(explained.keysExamined <= 11, `examined ${explained.keysExamined} keys`);
  const caseless = await explainFind(collection, { _id: { $regex: "^c7_", $options: "i" } }, {});
  assert.ok(caseless.keysExamined + caseless.docsExamined >= 500, "a case-insensitive regex has no bounds");
});

void test("a range on _id sorted by _id descending with a limit reads one key", async () => {
  const collection = fixture.db.collection("id_range");
  await collection.insertMany(
    Array.from({ length: 300 }, (_, i) => ({ _id: `k_${String(i).padStart(4, "0")}` as never })),
  );
  const range: Document = { _id: { $gte: "k_0100", $lt: "k_0200" } };
  const explained = await explainFind(collection, range, { _id: -1 }, 1);
  assert.equal(explained.stages.includes("SORT"), false);
  assert.deepEqual([explained.keysExamined, explained.docsExamined], [1, 1]);
  const [last] = await collection.find(range).sort({ _id: -1 }).limit(1).toArray();
  assert.equal(last?._id, "k_0199");
});

void test("an aggregate's leading $match, $sort and $limit are answered from an index", async () => {
  const collection = await chunkCollection("aggregated", 4, 50);
  const pipeline = [
    { $match: { book_id: 3 } },
    { $sort: { seq: -1 } },
    { $limit: 2 },
    { $project: { seq: 1 } },
  ];
  const explained = summarizeExplain(await collection.aggregate(pipeline).explain("executionStats"));
  assert.equal(explained.stages.includes("SORT"), false);
  assert.ok(explained.docsExamined <= 2, `examined ${explained.docsExamined} documents`);
  const found = await collection.aggregate(pipeline).toArray();
  assert.deepEqual(
    found.map((doc) => doc.seq),
    [49, 48],
  );
});

void test("a document a transaction changed is read at its snapshot position in an index scan", async () => {
  const collection = await chunkCollection("snapshot_scan", 1, 5);
  const session = fixture.mongo.client.startSession();
  try {
    await session.withTransaction(async () => {
      await collection.updateOne({ _id: "0:0" as never }, { $set: { seq: 9 } }, { session });
      const [last] = await collection.find({ book_id: 0 }, { session }).sort({ seq: -1 }).limit(1).toArray();
      assert.equal(last?._id, "0:0");
    });
  } finally {
    await session.endSession();
  }
});
