import assert from "node:assert/strict";
import { test } from "node:test";
import type { Document } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_cursors", {
  setUp: async ({ db }) => {
    await db
      .collection("numbers")
      .insertMany(Array.from({ length: 25 }, (_, i) => ({ _id: i as never, n: i })));
  },
});
/** Cursor ids are Int64: keep them Long so getMore sends them back as mongod requires. */
const command = (cmd: Document) => fixture.db.command(cmd, { promoteLongs: false });

void test("a find with batchSize 10 delivers every document across several getMores", async () => {
  const first = await command({ find: "numbers", filter: {}, sort: { _id: 1 }, batchSize: 10 });
  assert.equal(first.cursor.firstBatch.length, 10);
  const ids: number[] = first.cursor.firstBatch.map((d: { _id: number }) => d._id);
  let cursorId = first.cursor.id;
  let getMores = 0;
  while (!cursorId.isZero()) {
    const next = await command({ getMore: cursorId, collection: "numbers", batchSize: 10 });
    ids.push(...next.cursor.nextBatch.map((d: { _id: number }) => d._id));
    cursorId = next.cursor.id;
    getMores += 1;
  }
  assert.equal(getMores, 2);
  assert.deepEqual(
    ids,
    Array.from({ length: 25 }, (_, i) => i),
  );
});

void test("the driver's cursor iterates a small-batch find to the end", async () => {
  const docs = await fixture.db.collection("numbers").find({}, { batchSize: 4 }).sort({ n: -1 }).toArray();
  assert.equal(docs.length, 25);
  assert.equal(docs[0]!.n, 24);
});

void test("a killed cursor is gone for getMore", async () => {
  const first = await command({ find: "numbers", filter: {}, batchSize: 2 });
  const killed = await command({ killCursors: "numbers", cursors: [first.cursor.id] });
  assert.equal(killed.cursorsKilled.length, 1);
  await assert.rejects(command({ getMore: first.cursor.id, collection: "numbers" }), { code: 43 });
});

void test("a cursor whose first batch holds everything comes back with id 0", async () => {
  const reply = await command({ find: "numbers", filter: { n: { $lt: 3 } } });
  assert.equal(reply.cursor.firstBatch.length, 3);
  assert.ok(reply.cursor.id.isZero());
});

void test("an aggregate cursor honours its batchSize", async () => {
  const reply = await command({ aggregate: "numbers", pipeline: [{ $match: {} }], cursor: { batchSize: 5 } });
  assert.equal(reply.cursor.firstBatch.length, 5);
  assert.ok(!reply.cursor.id.isZero());
  await command({ killCursors: "numbers", cursors: [reply.cursor.id] });
});
