// $bsonSize of the document itself ($$ROOT) is remembered per document object: each version a
// write makes, and each stage's output, is measured as it stands, never as an earlier one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BSON, type Document } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_bson_size_expression");

const sizeIs = (bytes: number) => ({ $expr: { $eq: [{ $bsonSize: "$$ROOT" }, bytes] } });

void test("a filter on $bsonSize of $$ROOT measures the version it reads, after every update", async () => {
  const collection = fixture.db.collection<{ _id: number; a: string; b?: string }>("versions");
  const first = { _id: 1, a: "x" };
  await collection.insertOne(first);
  assert.equal(await collection.countDocuments(sizeIs(BSON.calculateObjectSize(first))), 1);

  await collection.updateOne({ _id: 1 }, { $set: { b: "a longer value" } });
  const second = { ...first, b: "a longer value" };
  assert.equal(await collection.countDocuments(sizeIs(BSON.calculateObjectSize(first))), 0);
  assert.equal(await collection.countDocuments(sizeIs(BSON.calculateObjectSize(second))), 1);
});

void test("$bsonSize of $$ROOT in a later stage measures what the earlier stages made", async () => {
  const collection = fixture.db.collection<{ _id: number; a: string; b?: string; size?: number }>("stages");
  await collection.insertOne({ _id: 1, a: "x" });
  await collection.updateOne({ _id: 1 }, [
    { $set: { b: "set by the first stage" } },
    { $set: { size: { $bsonSize: "$$ROOT" } } },
  ]);
  const stored = await collection.findOne({ _id: 1 });
  assert.equal(stored?.size, BSON.calculateObjectSize({ _id: 1, a: "x", b: "set by the first stage" }));

  // The $match judges $addFields' output, a new document: measured as it stands, with `c`.
  const added = { ...stored, c: "added" };
  const [matched] = await collection
    .aggregate([
      { $addFields: { c: "added" } },
      { $match: { $expr: { $eq: [{ $bsonSize: "$$CURRENT" }, BSON.calculateObjectSize(added)] } } },
      { $project: { measured: { $bsonSize: "$$ROOT" }, whole: "$$ROOT" } },
    ])
    .toArray();
  assert.ok(matched, "the stage's output matched at its own size");
  assert.equal(matched.measured, BSON.calculateObjectSize(matched.whole as Document));
});
