// A write command of thousands of statements must not hold up the server's other clients
// until it ends: mongod's writes yield, so another connection's read issued meanwhile is
// answered with part of the command's writes done. Without the yield, every read would see
// all of them or none.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { AnyBulkWriteOperation, Collection, Db, Document, MongoClient } from "mongodb";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../support/mongo.js";

const STATEMENTS = 20_000;
const WIRE_VERSION_8_0 = 25;

type Book = { _id: number; sold?: boolean };

let mongo: TestMongo;
let writer: MongoClient;
let reader: MongoClient;
let db: Db;

before(async () => {
  mongo = await startTestMongo({ serverVersion: "8.0" });
  writer = await mongo.newClient();
  reader = await mongo.newClient();
  db = writer.db(uniqueDatabaseName("server_write_yield"));
});
after(async () => {
  await db.dropDatabase();
  await Promise.all([writer.close(), reader.close()]);
  await mongo.close();
});

const ids = Array.from({ length: STATEMENTS }, (_, i) => i);

/** Counts `filter` on the reader's connection, again and again, until `write` settles. */
async function countsDuring(name: string, filter: Document, write: Promise<unknown>): Promise<number[]> {
  let finished = false;
  const settled = write.finally(() => (finished = true));
  const counts: number[] = [];
  const collection = reader.db(db.databaseName).collection(name);
  while (!finished) counts.push(await collection.countDocuments(filter));
  await settled;
  return counts;
}

function assertSeenHalfway(counts: number[], what: string): void {
  assert.ok(
    counts.some((count) => count > 0 && count < STATEMENTS),
    `a read answered while the ${what} ran saw part of its writes (counts seen: ${counts.join(", ")})`,
  );
}

async function seeded(name: string, books: Book[]): Promise<Collection<Book>> {
  const collection = db.collection<Book>(name);
  await collection.insertMany(books);
  return collection;
}

void test("an insert of 20,000 documents lets another connection read while it runs", async () => {
  const collection = db.collection<Book>("insert_many");
  const counts = await countsDuring(
    collection.collectionName,
    {},
    collection.insertMany(ids.map((_id) => ({ _id }))),
  );
  assertSeenHalfway(counts, "insert");
  assert.equal(await collection.countDocuments(), STATEMENTS);
});

void test("an update command of 20,000 statements lets another connection read while it runs", async () => {
  const collection = await seeded(
    "update_many",
    ids.map((_id) => ({ _id })),
  );
  const updates: AnyBulkWriteOperation<Book>[] = ids.map((_id) => ({
    updateOne: { filter: { _id }, update: { $set: { sold: true } } },
  }));
  const counts = await countsDuring(collection.collectionName, { sold: true }, collection.bulkWrite(updates));
  assertSeenHalfway(counts, "update");
  assert.equal(await collection.countDocuments({ sold: true }), STATEMENTS);
});

void test("a delete command of 20,000 statements lets another connection read while it runs", async () => {
  const collection = await seeded(
    "delete_many",
    ids.map((_id) => ({ _id })),
  );
  const deletes: AnyBulkWriteOperation<Book>[] = ids.map((_id) => ({ deleteOne: { filter: { _id } } }));
  const counts = await countsDuring(collection.collectionName, {}, collection.bulkWrite(deletes));
  assertSeenHalfway(counts, "delete");
  assert.equal(await collection.countDocuments(), 0);
});

void test("a bulkWrite of 20,000 ops (MongoDB 8.0) lets another connection read while it runs", async (t) => {
  const hello = await writer.db("admin").command({ hello: 1 });
  if (Number(hello.maxWireVersion) < WIRE_VERSION_8_0) return t.skip("bulkWrite needs MongoDB 8.0");
  const namespace = `${db.databaseName}.client_bulk_write` as const;
  const inserts = ids.map((_id) => ({ namespace, name: "insertOne" as const, document: { _id } }));
  const counts = await countsDuring("client_bulk_write", {}, writer.bulkWrite<Record<string, Book>>(inserts));
  assertSeenHalfway(counts, "bulkWrite");
  assert.equal(await db.collection("client_bulk_write").countDocuments(), STATEMENTS);
});
