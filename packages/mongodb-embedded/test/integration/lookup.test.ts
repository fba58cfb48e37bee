// $lookup joined on localField/foreignField as mongod runs it: each input document's join is
// one read of the foreign collection through its indexes, the sub-pipeline's leading $sort and
// $limit included, so explain shows a cost that follows the input, not the foreign data.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MongoServerError, type Collection, type Document } from "mongodb";
import { summarizeLookup } from "../support/explain.js";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_lookup");

/** `books` books, each with `perBook` extra sales numbered by `seq`, under {book_id: 1, seq: 1}
 * unless `indexed` is false. */
async function booksWithExtraSales(label: string, books: number, perBook: number, indexed = true) {
  const sales = fixture.db.collection(`${label}_sales`);
  const extra = fixture.db.collection(`${label}_extra_sales`);
  if (indexed) await extra.createIndex({ book_id: 1, seq: 1 });
  await sales.insertMany(
    Array.from({ length: books }, (_, book) => ({ _id: book as never, title: `t${book}` })),
  );
  const docs: Document[] = [];
  for (let book = 0; book < books; book++)
    for (let seq = 0; seq < perBook; seq++) docs.push({ book_id: book, seq, customers: [`c${seq}`] });
  await extra.insertMany(docs);
  return { sales, extra };
}

/** The sidecar's batch read of outlier corrections: each book with its last extra-sales document. */
function lastExtraSales(extra: Collection, ids: number[]): Document[] {
  return [
    { $match: { _id: { $in: ids } } },
    {
      $lookup: {
        from: extra.collectionName,
        localField: "_id",
        foreignField: "book_id",
        pipeline: [{ $sort: { seq: -1 } }, { $limit: 1 }],
        as: "last",
      },
    },
  ];
}

void test("the last extra-sales document of each book examines one index key per book, however many each has", async () => {
  const ids = [0, 2, 3];
  for (const perBook of [1, 60]) {
    const { sales, extra } = await booksWithExtraSales(`per_${perBook}`, 4, perBook);
    const pipeline = lastExtraSales(extra, ids);
    const joined = await sales.aggregate(pipeline).toArray();
    assert.deepEqual(
      joined.map((book) => [book._id, (book.last as Document[]).map((d) => d.seq)]),
      ids.map((id) => [id, [perBook - 1]]),
    );
    const explained = summarizeLookup(await sales.aggregate(pipeline).explain("executionStats"));
    assert.deepEqual(explained, {
      keysExamined: ids.length,
      docsExamined: ids.length,
      collectionScans: 0,
      indexesUsed: ["book_id_1_seq_1"],
      nReturned: ids.length,
    });
  }
});

void test("without an index on the foreign field the $lookup reports collection scans", async () => {
  const { sales, extra } = await booksWithExtraSales("unindexed", 3, 5, false);
  const explained = summarizeLookup(
    await sales.aggregate(lastExtraSales(extra, [1, 2])).explain("executionStats"),
  );
  assert.ok(explained.collectionScans > 0, `collectionScans ${explained.collectionScans}`);
  assert.deepEqual(explained.indexesUsed, []);
  assert.equal(explained.keysExamined, 0);
  assert.equal(explained.nReturned, 2);
});

void test("a $lookup without a pipeline joins every foreign document equal to the local value", async () => {
  const { sales, extra } = await booksWithExtraSales("plain", 3, 4);
  const pipeline = [
    { $match: { _id: 1 } },
    { $lookup: { from: extra.collectionName, localField: "_id", foreignField: "book_id", as: "extras" } },
  ];
  const [book] = await sales.aggregate(pipeline).toArray();
  const seqs = (book?.extras as Document[]).map((d) => d.seq as number).sort();
  assert.deepEqual(seqs, [0, 1, 2, 3]);
});

void test("a local array joins each of its elements, and a missing local field joins null and missing", async () => {
  const orders = fixture.db.collection("orders");
  const items = fixture.db.collection("items");
  await items.insertMany([
    { _id: "a" as never, sku: 1 },
    { _id: "b" as never, sku: 2 },
    { _id: "c" as never, sku: 3 },
    { _id: "d" as never, sku: null },
    { _id: "e" as never },
  ]);
  await orders.insertMany([{ _id: 1 as never, skus: [1, 3] }, { _id: 2 as never }]);
  const joined = await orders
    .aggregate([
      { $sort: { _id: 1 } },
      { $lookup: { from: "items", localField: "skus", foreignField: "sku", as: "found" } },
    ])
    .toArray();
  assert.deepEqual(
    joined.map((order) => (order.found as Document[]).map((item) => item._id as string).sort()),
    [
      ["a", "c"],
      ["d", "e"],
    ],
  );
});

void test("the sub-pipeline's own $match narrows the join, and later stages run on what it read", async () => {
  const { sales, extra } = await booksWithExtraSales("narrowed", 2, 10);
  const [book] = await sales
    .aggregate([
      { $match: { _id: 1 } },
      {
        $lookup: {
          from: extra.collectionName,
          localField: "_id",
          foreignField: "book_id",
          pipeline: [
            { $match: { seq: { $gte: 7 } } },
            { $project: { _id: 0, seq: 1 } },
            { $sort: { seq: 1 } },
          ],
          as: "late",
        },
      },
    ])
    .toArray();
  assert.deepEqual(book?.late, [{ seq: 7 }, { seq: 8 }, { seq: 9 }]);
});

void test("a $lookup between other stages joins on computed fields and feeds the next stage", async () => {
  const { sales, extra } = await booksWithExtraSales("between", 3, 4);
  const joined = await sales
    .aggregate([
      { $match: { _id: { $in: [0, 2] } } },
      { $addFields: { book: { $add: ["$_id", 0] } } },
      { $lookup: { from: extra.collectionName, localField: "book", foreignField: "book_id", as: "extras" } },
      { $project: { _id: 1, n: { $size: "$extras" } } },
      { $sort: { _id: 1 } },
    ])
    .toArray();
  assert.deepEqual(joined, [
    { _id: 0, n: 4 },
    { _id: 2, n: 4 },
  ]);
});

void test("a $lookup in a transaction sees that transaction's own insert and not another's", async () => {
  const { sales, extra } = await booksWithExtraSales("txn", 2, 1);
  const mine = fixture.mongo.client.startSession();
  const theirs = fixture.mongo.client.startSession();
  try {
    mine.startTransaction();
    theirs.startTransaction();
    await extra.insertOne({ book_id: 0, seq: 5 }, { session: mine });
    await extra.insertOne({ book_id: 1, seq: 6 }, { session: theirs });
    const joined = await sales.aggregate(lastExtraSales(extra, [0, 1]), { session: mine }).toArray();
    assert.deepEqual(
      joined.map((book) => [book._id, (book.last as Document[])[0]?.seq]),
      [
        [0, 5],
        [1, 0],
      ],
    );
  } finally {
    await mine.abortTransaction();
    await theirs.abortTransaction();
    await mine.endSession();
    await theirs.endSession();
  }
});

const failsToParse = (code: number) => (error: unknown) =>
  error instanceof MongoServerError && error.code === code;

void test("malformed $lookup specifications are refused with mongod's codes", async () => {
  const sales = fixture.db.collection("refusals");
  await sales.insertOne({ _id: 1 as never });
  const refused = async (lookup: Document, code: number) =>
    assert.rejects(
      sales.aggregate([{ $lookup: lookup }]).toArray(),
      failsToParse(code),
      JSON.stringify(lookup),
    );
  await refused({ from: "x", localField: "a", foreignField: "b" }, 9);
  await refused({ from: "x", localField: "a", as: "j" }, 9);
  await refused({ from: "x", localField: "a", pipeline: [], as: "j" }, 9);
  await refused({ from: "x", localField: "a", foreignField: "b", let: { v: 1 }, as: "j" }, 9);
  await refused({ from: "x", localField: "a", foreignField: "b", as: "j", bogus: 1 }, 9);
  await refused({ from: 1, localField: "a", foreignField: "b", as: "j" }, 9);
  await refused({ from: "x", pipeline: [{ $out: "y" }], as: "j" }, 51047);
  await refused({ from: "x", localField: "$a", foreignField: "b", as: "j" }, 16410);
});
