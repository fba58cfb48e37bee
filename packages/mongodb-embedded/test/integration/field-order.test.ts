// mongod keeps a document's fields in the order they were written, integer-like names too
// (a JS object would list "1" and "2" before "b"). Documents are sent as Maps, which js-bson
// serializes in insertion order, and read back as raw bytes, which nothing reorders.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BSON, type Document } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_field_order");

/** A document whose fields are in the order given, whatever their names. */
const ordered = (...fields: [string, unknown][]): Document => new Map(fields) as unknown as Document;

const entry = () => ordered(["b", 1], ["2", 1], ["1", 1]);

const bytesOf = (doc: Document): Buffer => Buffer.from(BSON.serialize(doc));

async function rawDocuments(name: string, filter: Document = {}): Promise<Buffer[]> {
  const raw = await fixture.db.collection(name).find(filter, { raw: true }).toArray();
  return raw.map((doc) => Buffer.from(doc as unknown as Uint8Array));
}

async function insertOrdered(name: string, doc: Document): Promise<void> {
  // A command, not insertOne: the driver would give a Map a generated _id of its own.
  await fixture.db.command({ insert: name, documents: [doc] });
}

void test("a document with integer-like field names comes back with its fields in the order sent", async () => {
  const doc = ordered(["_id", 1], ["e", entry()]);
  await insertOrdered("round_trip", doc);
  assert.deepEqual(await rawDocuments("round_trip"), [bytesOf(doc)]);
});

void test("an aggregation returns a document with integer-like field names in its order", async () => {
  const doc = ordered(["_id", 1], ["e", entry()]);
  await insertOrdered("aggregated", doc);
  const raw = await fixture.db
    .collection("aggregated")
    .aggregate([{ $match: { _id: 1 } }], { raw: true })
    .toArray();
  assert.deepEqual(
    raw.map((bytes) => Buffer.from(bytes as unknown as Uint8Array)),
    [bytesOf(doc)],
  );
});

void test("setting another field keeps the fields' order, and a new integer-like field goes last", async () => {
  await insertOrdered("after_set", ordered(["_id", 1], ["e", entry()], ["n", 1]));
  await fixture.db
    .collection<{ _id: number }>("after_set")
    .updateOne({ _id: 1 }, { $set: { n: 2, "0": "new" } });
  assert.deepEqual(await rawDocuments("after_set"), [
    bytesOf(ordered(["_id", 1], ["e", entry()], ["n", 2], ["0", "new"])),
  ]);
});

void test("setting a field inside an ordered document keeps the fields around it in place", async () => {
  await insertOrdered("nested_set", ordered(["_id", 1], ["e", entry()]));
  await fixture.db
    .collection<{ _id: number }>("nested_set")
    .updateOne({ _id: 1 }, { $set: { "e.2": 5, "e.0": 6 } });
  assert.deepEqual(await rawDocuments("nested_set"), [
    bytesOf(ordered(["_id", 1], ["e", ordered(["b", 1], ["2", 5], ["1", 1], ["0", 6])])),
  ]);
});

void test("a replacement is stored in the order it was sent", async () => {
  await insertOrdered("replaced", ordered(["_id", 1], ["n", 1]));
  const replacement = ordered(["e", entry()], ["9", 9]);
  await fixture.db.command({ update: "replaced", updates: [{ q: { _id: 1 }, u: replacement }] });
  assert.deepEqual(await rawDocuments("replaced"), [bytesOf(ordered(["_id", 1], ["e", entry()], ["9", 9]))]);
});

void test("a change event's fullDocument holds the inserted fields in their order", async () => {
  const name = "watched";
  const opened = await fixture.db.command({ aggregate: name, pipeline: [{ $changeStream: {} }], cursor: {} });
  const cursorId = (opened.cursor as Document).id as unknown;
  const doc = ordered(["_id", 1], ["e", entry()]);
  await insertOrdered(name, doc);
  const deadline = Date.now() + 10_000;
  let events: Buffer[] = [];
  while (events.length === 0 && Date.now() < deadline) {
    const reply = await fixture.db.command(
      { getMore: cursorId, collection: name, maxTimeMS: 500 },
      { fieldsAsRaw: { nextBatch: true } },
    );
    events = ((reply.cursor as Document).nextBatch as Uint8Array[]).map((event) => Buffer.from(event));
  }
  assert.equal(events.length, 1);
  const event = BSON.deserialize(events[0]!, { raw: true });
  assert.deepEqual(Buffer.from(event.fullDocument as Uint8Array), bytesOf(doc));
  await fixture.db.command({ killCursors: name, cursors: [cursorId] });
});

void test("an _id is found by an equality on the same fields in the same order only", async () => {
  const collection = fixture.db.collection("ids");
  const sent = ordered(["b", 1], ["1", 1]);
  await insertOrdered("ids", ordered(["_id", sent], ["n", 1]));
  assert.equal((await rawDocuments("ids", { _id: sent })).length, 1);
  assert.equal((await rawDocuments("ids", { _id: ordered(["1", 1], ["b", 1]) })).length, 0);
  // The other order is another value, so it may be inserted beside the first.
  await insertOrdered("ids", ordered(["_id", ordered(["1", 1], ["b", 1])], ["n", 2]));
  assert.equal(await collection.countDocuments({}), 2);
  assert.equal((await rawDocuments("ids", { _id: ordered(["1", 1], ["b", 1]) })).length, 1);
});

void test("a DBRef comes back as written: $id first, $db last, integer-like extra fields", async () => {
  const refs = [
    ordered(["$id", 1], ["$ref", "c"]),
    ordered(["$ref", "c"], ["$id", 2], ["x", 1], ["$db", "d"]),
    ordered(["$ref", "c"], ["$id", 3], ["b", 1], ["2", entry()]),
  ];
  const doc = ordered(["_id", 1], ["refs", refs]);
  await insertOrdered("references", doc);
  assert.deepEqual(await rawDocuments("references"), [bytesOf(doc)]);
  await fixture.db.collection<{ _id: number }>("references").updateOne({ _id: 1 }, { $set: { z: 1 } });
  const updated = ordered(["_id", 1], ["refs", refs], ["z", 1]);
  assert.deepEqual(await rawDocuments("references"), [bytesOf(updated)]);
});
