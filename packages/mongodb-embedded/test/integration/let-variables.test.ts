import assert from "node:assert/strict";
import { test } from "node:test";
import { MongoServerError, type Collection } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

interface Quote {
  _id: number;
  sym: string;
  px?: number;
  note?: string;
}

const fixture = useTestDatabase("server_let");

async function quotes(name: string): Promise<Collection<Quote>> {
  const collection = fixture.db.collection<Quote>(name);
  await collection.insertMany([
    { _id: 1, sym: "eurusd", px: 1.08 },
    { _id: 2, sym: "gbpusd", px: 1.27 },
    { _id: 3, sym: "eurusd", px: 1.09 },
  ]);
  return collection;
}

const bySym = { $expr: { $eq: ["$sym", "$$sym"] } };

void test("find filters with $expr on a let variable", async () => {
  const collection = await quotes("find");
  const found = await collection
    .find(bySym, { let: { sym: "eurusd" } })
    .sort({ _id: 1 })
    .toArray();
  assert.deepEqual(
    found.map((d) => d._id),
    [1, 3],
  );
});

void test("aggregate sees let variables in $match and $project, evaluated expressions included", async () => {
  const collection = await quotes("aggregate");
  const result = await collection
    .aggregate(
      [{ $match: bySym }, { $sort: { _id: 1 } }, { $project: { _id: 1, tag: "$$tag", limit: "$$limit" } }],
      { let: { sym: "gbpusd", tag: { $literal: "$raw" }, limit: { $add: [1, 2] } } },
    )
    .toArray();
  assert.deepEqual(result, [{ _id: 2, tag: "$raw", limit: 3 }]);
});

void test("updateMany uses let in its filter and in a pipeline update", async () => {
  const collection = await quotes("update");
  const result = await collection.updateMany(bySym, [{ $set: { note: "$$note" } }], {
    let: { sym: "eurusd", note: "checked" },
  });
  assert.equal(result.modifiedCount, 2);
  const notes = await collection
    .find({}, { projection: { note: 1 } })
    .sort({ _id: 1 })
    .toArray();
  assert.deepEqual(notes, [{ _id: 1, note: "checked" }, { _id: 2 }, { _id: 3, note: "checked" }]);
});

void test("deleteOne and deleteMany filter on let variables", async () => {
  const collection = await quotes("delete");
  assert.equal((await collection.deleteOne(bySym, { let: { sym: "eurusd" } })).deletedCount, 1);
  assert.equal((await collection.deleteMany(bySym, { let: { sym: "eurusd" } })).deletedCount, 1);
  assert.deepEqual(await collection.countDocuments(), 1);
});

void test("findOneAndUpdate and findOneAndDelete use let in the query and the update", async () => {
  const collection = await quotes("find_and_modify");
  const updated = await collection.findOneAndUpdate(
    { $expr: { $eq: ["$_id", "$$id"] } },
    [{ $set: { px: { $multiply: ["$px", "$$factor"] } } }],
    { let: { id: 2, factor: 2 }, returnDocument: "after" },
  );
  assert.deepEqual(updated, { _id: 2, sym: "gbpusd", px: 2.54 });
  const removed = await collection.findOneAndDelete({ $expr: { $eq: ["$_id", "$$id"] } }, { let: { id: 3 } });
  assert.equal(removed?._id, 3);
});

void test("a let variable named with an uppercase first letter is refused (FailedToParse)", async () => {
  const collection = await quotes("bad_name");
  await assert.rejects(
    collection.find(bySym, { let: { Sym: "eurusd" } }).toArray(),
    (error: unknown) => error instanceof MongoServerError && error.code === 9,
  );
});

void test("let cannot redefine the system variable NOW", async () => {
  const collection = await quotes("system_name");
  await assert.rejects(
    collection.find({}, { let: { NOW: new Date() } }).toArray(),
    (error: unknown) => error instanceof MongoServerError && error.code === 4738901,
  );
});

void test("a let expression may not read a document field", async () => {
  const collection = await quotes("field_read");
  await assert.rejects(
    collection.deleteMany(bySym, { let: { sym: "$sym" } }),
    (error: unknown) => error instanceof MongoServerError && error.code === 4890500,
  );
  assert.equal(await collection.countDocuments(), 3);
});
