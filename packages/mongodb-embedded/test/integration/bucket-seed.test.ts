import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";
import type { Collection, Document } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_bucket");
let trades: Collection<Document>;

const seedBuckets = () => [
  {
    _id: "123_1698349623",
    customerId: 123,
    count: 2,
    history: [
      { type: "buy", ticker: "MDB", qty: 419, date: new Date("2023-10-26T15:47:03.434Z") },
      { type: "sell", ticker: "MDB", qty: 29, date: new Date("2023-10-30T09:32:57.765Z") },
    ],
  },
  {
    _id: "456_1698765362",
    customerId: 456,
    count: 1,
    history: [{ type: "buy", ticker: "GOOG", quantity: 50, date: new Date("2023-10-31T11:16:02.120Z") }],
  },
];

const msftTrade = { type: "buy", ticker: "MSFT", qty: 42, date: new Date("2023-11-02T11:43:10Z") };

/** The seed's application write: push into a bucket with room, or open a new one. */
const pushTrade = () => {
  const update: Document = {
    $push: { history: msftTrade },
    $inc: { count: 1 },
    $setOnInsert: { _id: "123_1698939791", customerId: 123 },
  };
  return trades.updateOne({ _id: /^123_/, count: { $lt: 10 } }, update, { upsert: true });
};

beforeEach(async () => {
  trades = fixture.db.collection("trades");
  await trades.drop();
  await trades.insertMany(seedBuckets() as never[]);
});

void test("the seed's upsert pushes into the open bucket, leaving exactly the documents the seed shows", async () => {
  const result = await pushTrade();
  assert.equal(result.matchedCount, 1);
  const [first, second] = seedBuckets();
  assert.deepEqual(await trades.find().sort({ _id: 1 }).toArray(), [
    { ...first, count: 3, history: [...first!.history, msftTrade] },
    second,
  ]);
});

void test("the seed's upsert opens a new bucket when the customer's bucket is full", async () => {
  const full = Array.from({ length: 10 }, (_, i) => ({
    type: "buy",
    ticker: "MDB",
    qty: i,
    date: new Date(1698349623000 + i),
  }));
  await trades.updateOne({ _id: "123_1698349623" as never }, { $set: { count: 10, history: full } });
  const result = await pushTrade();
  assert.equal(result.upsertedId, "123_1698939791");
  const created = await trades.findOne({ _id: "123_1698939791" as never });
  assert.deepEqual(created, { _id: "123_1698939791", customerId: 123, count: 1, history: [msftTrade] });
});

void test("the seed's paging query returns one bucket per page in _id order", async () => {
  await trades.insertOne({ _id: "123_1698939791" as never, customerId: 123, count: 1, history: [msftTrade] });
  const page = (k: number) => trades.find({ _id: /^123_/ }).sort({ _id: 1 }).skip(k).limit(1).toArray();
  assert.deepEqual(
    (await page(0)).map((d) => d._id),
    ["123_1698349623"],
  );
  assert.deepEqual(
    (await page(1)).map((d) => d._id),
    ["123_1698939791"],
  );
  assert.deepEqual(await page(9), []);
});
