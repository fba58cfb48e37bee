// A projection with aggregation expressions keeps the BSON types of the values it passes on:
// an Int64 or a Double that $arrayToObject moves into a new document stays one, as on mongod.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Double, Int32, Long, type Document } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_projection_types");
const RAW_NUMBERS = { promoteValues: false, promoteLongs: false } as const;

async function projected(doc: Document, projection: Document): Promise<Document> {
  const collection = fixture.db.collection("typed");
  await collection.deleteMany({});
  await collection.insertOne({ _id: 1 as never, ...doc });
  const found = await collection.findOne({ _id: 1 as never }, { projection, ...RAW_NUMBERS });
  assert.ok(found);
  return found;
}

const typeOf = (value: unknown) => (value as { _bsontype?: string })._bsontype;

void test("$arrayToObject in a find projection keeps Int64 and Double values, and the fields beside it", async () => {
  const found = await projected(
    {
      total: Long.fromNumber(5),
      ratio: new Double(2),
      pairs: [
        ["big", Long.fromString("9007199254740993")],
        ["whole", new Double(3)],
        ["small", new Int32(4)],
      ],
    },
    { total: 1, ratio: 1, obj: { $arrayToObject: "$pairs" } },
  );
  assert.deepEqual([typeOf(found.total), typeOf(found.ratio)], ["Long", "Double"]);
  const obj = found.obj as Document;
  assert.deepEqual(Object.keys(obj), ["big", "whole", "small"]);
  assert.deepEqual([typeOf(obj.big), typeOf(obj.whole), typeOf(obj.small)], ["Long", "Double", "Int32"]);
  assert.equal(String(obj.big), "9007199254740993");
});

void test("$arrayToObject of {k, v} documents keeps the first place of a repeated key and its last value", async () => {
  const found = await projected(
    {
      kv: [
        { k: "b", v: 1 },
        { k: "2", v: 2 },
        { k: "b", v: Long.fromNumber(3) },
      ],
    },
    { _id: 0, obj: { $arrayToObject: "$kv" } },
  );
  const obj = found.obj as Document;
  assert.deepEqual(Object.keys(obj).length, 2);
  assert.equal(typeOf(obj.b), "Long");
  assert.equal(Number(obj.b), 3);
});

void test("$arrayToObject refuses a pair that is not two elements long, with mongod's code", async () => {
  await assert.rejects(
    projected({ pairs: [["alone"]] }, { obj: { $arrayToObject: "$pairs" } }),
    // Read with promoteValues off, the reply's code is an Int32 too.
    (error: unknown) => Number((error as { code?: unknown }).code) === 40397,
  );
});

void test("`_id: 0` beside computed fields leaves _id out, in find and in $project", async () => {
  const found = await projected({ a: 2 }, { _id: 0, next: { $add: ["$a", 1] } });
  assert.deepEqual(Object.keys(found), ["next"]);
  const [aggregated] = await fixture.db
    .collection("typed")
    .aggregate([{ $project: { _id: 0, next: { $add: ["$a", 1] } } }])
    .toArray();
  assert.deepEqual(Object.keys(aggregated ?? {}), ["next"]);
});
