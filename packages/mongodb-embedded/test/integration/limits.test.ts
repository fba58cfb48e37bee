import assert from "node:assert/strict";
import { test } from "node:test";
import { MongoBulkWriteError, MongoServerError } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_limits");

const SIXTEEN_MIB = 16 * 1024 * 1024;

void test("a unique index violation fails with 11000 naming the key pattern and value", async () => {
  const reviews = fixture.db.collection("reviews");
  await reviews.createIndex({ product_id: 1, review_id: 1 }, { unique: true });
  await reviews.insertOne({ product_id: 7, review_id: 1 });
  await assert.rejects(reviews.insertOne({ product_id: 7, review_id: 1 }), (error: unknown) => {
    assert.ok(error instanceof MongoServerError);
    assert.equal(error.code, 11000);
    assert.deepEqual(error.keyPattern, { product_id: 1, review_id: 1 });
    assert.deepEqual(error.keyValue, { product_id: 7, review_id: 1 });
    assert.match(
      error.message,
      /E11000 duplicate key error collection: .*reviews index: product_id_1_review_id_1/,
    );
    return true;
  });
});

void test("a duplicate _id fails with 11000 on the _id_ index", async () => {
  const collection = fixture.db.collection("dupid");
  await collection.insertOne({ _id: "x" as never });
  await assert.rejects(collection.insertOne({ _id: "x" as never }), { code: 11000, keyPattern: { _id: 1 } });
});

void test("an ordered insertMany stops at the first error and an unordered one goes on", async () => {
  const ordered = fixture.db.collection("ordered");
  await assert.rejects(
    ordered.insertMany([{ _id: 1 }, { _id: 1 }, { _id: 2 }] as never[]),
    MongoBulkWriteError,
  );
  assert.equal(await ordered.countDocuments({}), 1);
  const unordered = fixture.db.collection("unordered");
  await assert.rejects(
    unordered.insertMany([{ _id: 1 }, { _id: 1 }, { _id: 2 }] as never[], { ordered: false }),
    MongoBulkWriteError,
  );
  assert.equal(await unordered.countDocuments({}), 2);
});

void test("creating an index that exists under another name fails with IndexOptionsConflict", async () => {
  const collection = fixture.db.collection("idxconflict");
  await collection.createIndex({ a: 1 }, { name: "first" });
  await assert.rejects(collection.createIndex({ a: 1 }, { name: "second" }), { code: 85 });
});

void test("creating the same index twice is accepted", async () => {
  const collection = fixture.db.collection("idxsame");
  await collection.createIndex({ a: 1 });
  assert.equal(await collection.createIndex({ a: 1 }), "a_1");
  const names = (await collection.listIndexes().toArray()).map((i) => i.name);
  assert.deepEqual(names, ["_id_", "a_1"]);
});

void test("a document over 16 MiB is refused on insert", async () => {
  const collection = fixture.db.collection("big");
  await assert.rejects(collection.insertOne({ blob: "x".repeat(SIXTEEN_MIB) }));
  assert.equal(await collection.countDocuments({}), 0);
});

void test("an update that grows a document past 16 MiB fails with 17419 and leaves it unchanged", async () => {
  const collection = fixture.db.collection("growing");
  await collection.insertOne({ _id: 1 as never, half: "x".repeat(SIXTEEN_MIB / 2) });
  await assert.rejects(
    collection.updateOne({ _id: 1 as never }, { $set: { other: "y".repeat(SIXTEEN_MIB / 2) } }),
    {
      code: 17419,
    },
  );
  const doc = await collection.findOne({ _id: 1 as never }, { projection: { other: 1 } });
  assert.deepEqual(doc, { _id: 1 });
});

void test("a $push of 150,000 elements, at the end or at a position, stores every element in order", async () => {
  const collection = fixture.db.collection<{ _id: string; list: number[] }>("long_push");
  const elements = Array.from({ length: 150_000 }, (_, i) => i);
  await collection.insertOne({ _id: "doc", list: [-2, -1] });
  await collection.updateOne({ _id: "doc" }, { $push: { list: { $each: elements } } });
  await collection.updateOne({ _id: "doc" }, { $push: { list: { $each: elements, $position: 1 } } });
  const list = (await collection.findOne({ _id: "doc" }))?.list ?? [];
  assert.equal(list.length, 300_002);
  assert.deepEqual(list.slice(0, 3), [-2, 0, 1]);
  assert.deepEqual(list.slice(150_000, 150_003), [149_999, -1, 0]);
  assert.equal(list.at(-1), 149_999);
});
