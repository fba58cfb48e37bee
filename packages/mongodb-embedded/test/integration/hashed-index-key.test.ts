// $toHashedIndexKey hashes as mongod does: the expected values are the fixed vectors of mongod's
// own unit test (src/mongo/db/hasher_test.cpp), and those of its documentation.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Binary, BSONRegExp, Double, Int32, Long, MaxKey, MinKey, ObjectId, type Document } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_hashed_index_key");

const VECTORS: [string, unknown, string][] = [
  ["int32 42", new Int32(42), "-944302157085130861"],
  ["double 42.123", new Double(42.123), "-944302157085130861"],
  ["int64 42", Long.fromNumber(42), "-944302157085130861"],
  ["int64 max", Long.MAX_VALUE, "921523596458303250"],
  ["int64 min", Long.MIN_VALUE, "4532067210535695462"],
  ["largest double", new Double(Number.MAX_VALUE), "921523596458303250"],
  ["-1.789", new Double(-1.789), "1140205862565771219"],
  ["null", null, "2338878944348059895"],
  ["minKey", new MinKey(), "7961148599568647290"],
  ["maxKey", new MaxKey(), "5504842513779440750"],
  ["'string to hash' (the documentation's example)", "string to hash", "763543691661428748"],
  ["'abc'", "abc", "8478485326885698097"],
  ["''", "", "2049396243249673340"],
  ["{a: 'abc', b: int64 123}", { a: "abc", b: Long.fromNumber(123) }, "4771603801758380216"],
  ["{}", {}, "7980500913326740417"],
  ["['bar', 'baz', 'qux']", ["bar", "baz", "qux"], "-2938911267422831539"],
  ["[]", [], "8849948234993459283"],
  ["binary", new Binary(Buffer.from([0, 1, 2, 3, 4, 6]), 0), "7252465090394235301"],
  ["custom binary", new Binary(Buffer.from([0, 1, 2, 3, 4, 6]), 128), "5736670452907618262"],
  ["ObjectId", new ObjectId("010203040506070809101112"), "-5588663249627035708"],
  ["true", true, "6405873908747105701"],
  ["false", false, "6289544573401934092"],
  ["epoch", new Date(0), "-1178696894582842035"],
  ["regex", new BSONRegExp("mongodb"), "-7275792090268217043"],
  ["regex with a flag", new BSONRegExp(".*", "i"), "7095855029187981886"],
];

const documents: Document[] = VECTORS.map(([, v], i) => ({ _id: i, v }));

const hashesOf = (docs: Document[]): string[] => docs.map((doc) => String(doc.h));

void test("$toHashedIndexKey in $addFields hashes every type as mongod", async () => {
  const values = fixture.db.collection<Document>("values");
  await values.insertMany(documents);
  const hashed = await values
    .aggregate([{ $sort: { _id: 1 } }, { $project: { h: { $toHashedIndexKey: "$v" } } }], {
      promoteLongs: false,
    })
    .toArray();
  assert.deepEqual(
    hashesOf(hashed).map((hash, i) => [VECTORS[i]![0], hash]),
    VECTORS.map(([name, , expected]) => [name, expected]),
  );
  assert.ok(hashed.every((doc) => doc.h instanceof Long));
});

void test("$toHashedIndexKey in a filter's $expr is exact for every int64, and hashes a missing field as null", async () => {
  const values = fixture.db.collection<Document>("filtered");
  await values.insertMany([...documents, { _id: "missing" }]);
  for (const [name, , expected] of [...VECTORS, ["missing", undefined, "2338878944348059895"] as const]) {
    const found = await values
      .find({ $expr: { $eq: [{ $toHashedIndexKey: "$v" }, Long.fromString(expected)] } })
      .toArray();
    assert.ok(found.length >= 1, `${name} found by its hash`);
  }
});

void test("$mod of an int64 keeps the dividend's sign and is exact past 2^53", async () => {
  const numbers = fixture.db.collection("numbers");
  await numbers.insertOne({ x: Long.fromString("-944302157085130861") });
  const [result] = await numbers
    .aggregate(
      [
        { $match: { $expr: { $eq: [{ $mod: ["$x", 16] }, Long.fromNumber(-13)] } } },
        { $project: { partition: { $mod: [{ $add: [{ $mod: ["$x", 16] }, 16] }, 16] } } },
      ],
      { promoteLongs: false },
    )
    .toArray();
  assert.deepEqual(result?.partition, Long.fromNumber(3));
});
