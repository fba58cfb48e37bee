import assert from "node:assert/strict";
import { test } from "node:test";
import { MongoServerError, type Collection } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const caseInsensitive = { locale: "en_US", strength: 2 };

const fixture = useTestDatabase("server_collation");

async function symbols(name: string): Promise<Collection<{ _id: number; sym: string }>> {
  const collection = fixture.db.collection<{ _id: number; sym: string }>(name);
  // A simple-collation index on the field: a collated query must not answer from it alone.
  await collection.createIndex({ sym: 1 });
  await collection.insertMany([
    { _id: 1, sym: "eurusd" },
    { _id: 2, sym: "EURUSD" },
    { _id: 3, sym: "EurUsd" },
    { _id: 4, sym: "gbpusd" },
  ]);
  return collection;
}

void test("find and count with strength 2 match a symbol whatever its case", async () => {
  const collection = await symbols("find_count");
  const found = await collection
    .find({ sym: "EURUSD" }, { collation: caseInsensitive })
    .sort({ _id: 1 })
    .toArray();
  assert.deepEqual(
    found.map((d) => d._id),
    [1, 2, 3],
  );
  assert.equal(await collection.countDocuments({ sym: "eurUSD" }, { collation: caseInsensitive }), 3);
  assert.equal(await collection.countDocuments({ sym: "eurUSD" }), 0);
});

void test("updateMany with strength 2 updates every case variant and nothing else", async () => {
  const collection = await symbols("update");
  const result = await collection.updateMany(
    { sym: "EurUsd" },
    { $set: { sym: "EUR/USD" } },
    { collation: caseInsensitive },
  );
  assert.equal(result.matchedCount, 3);
  assert.equal(result.modifiedCount, 3);
  assert.equal(await collection.countDocuments({ sym: "EUR/USD" }), 3);
  assert.equal(await collection.countDocuments({ sym: "gbpusd" }), 1);
});

void test("a collated sort orders strings alphabetically rather than capitals first", async () => {
  const collection = fixture.db.collection<{ _id: number; name: string }>("sorted");
  await collection.insertMany([
    { _id: 1, name: "beta" },
    { _id: 2, name: "Alpha" },
    { _id: 3, name: "alpha2" },
    { _id: 4, name: "Gamma" },
  ]);
  const sorted = await collection
    .find({}, { collation: { locale: "en" } })
    .sort({ name: 1 })
    .toArray();
  assert.deepEqual(
    sorted.map((d) => d.name),
    ["Alpha", "alpha2", "beta", "Gamma"],
  );
});

void test("an unknown locale is refused with BadValue", async () => {
  const collection = fixture.db.collection("refused");
  await assert.rejects(
    collection.find({}, { collation: { locale: "xx" } }).toArray(),
    (error) => error instanceof MongoServerError && error.code === 2,
  );
});
