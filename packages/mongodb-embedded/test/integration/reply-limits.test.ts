// Replies over mongod's 16 MiB + 16 KiB limit, through the official driver (embedded server or
// MONGODB_URI): the command fails with BSONObjectTooLarge; the connection and server stay up.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MongoServerError, type Db } from "mongodb";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../support/mongo.js";

let mongo: TestMongo;
let db: Db;
const T = { timeout: 60_000 };
const NINE_MIB = 9 * 1024 * 1024;

before(async () => {
  mongo = await startTestMongo();
  db = mongo.client.db(uniqueDatabaseName("reply_limits"));
  const books = db.collection<{ _id: number; text: string }>("books");
  await books.insertOne({ _id: 1, text: "a".repeat(NINE_MIB) });
  await books.insertOne({ _id: 2, text: "b".repeat(NINE_MIB) });
});

after(async () => {
  await db.dropDatabase();
  await mongo.close();
});

const isTooLarge = (error: unknown) => error instanceof MongoServerError && error.code === 10334;

void test("an aggregate whose $group result is over 16 MiB fails with BSONObjectTooLarge", T, async () => {
  const pipeline = [{ $group: { _id: null, texts: { $push: "$text" } } }];
  await assert.rejects(db.collection("books").aggregate(pipeline).toArray(), isTooLarge);
});

void test("after a reply too large, the same client's next commands are answered", T, async () => {
  const pipeline = [{ $group: { _id: null, texts: { $push: "$text" } } }];
  await assert.rejects(db.collection("books").aggregate(pipeline).toArray(), isTooLarge);
  assert.equal((await db.command({ ping: 1 })).ok, 1);
  assert.equal(await db.collection("books").countDocuments(), 2);
});

void test(
  "an aggregate of many small results nearing 16 MiB in all comes in batches that fit",
  T,
  async () => {
    const notes = db.collection<{ _id: number; text: string }>("notes");
    const count = 120_000;
    const text = "n".repeat(110);
    for (let from = 0; from < count; from += 20_000)
      await notes.insertMany(Array.from({ length: 20_000 }, (_, i) => ({ _id: from + i, text })));
    const all = await notes.aggregate([{ $match: {} }], { batchSize: 1_000_000 }).toArray();
    assert.equal(all.length, count);
  },
);
