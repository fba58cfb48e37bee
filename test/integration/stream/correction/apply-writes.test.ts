// A plan's writes as the server receives them: one write command per run of one kind in a
// collection, in plan order, inside the correction's transaction; a guard that matches
// nothing undoes the lot, a refused write surfaces with the server's code.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { CommandStartedEvent, Document, MongoClient } from "mongodb";
import { classify, StalePlanError } from "../../../../src/errors.js";
import type { Write } from "../../../../src/patterns/plan.js";
import { applyWrites } from "../../../../src/stream/correction/apply.js";
import { useTestDatabase } from "../../../support/mongo.js";

let client: MongoClient;
const fixture = useTestDatabase("apply_writes", {
  async setUp({ mongo }) {
    client = await mongo.newClient({ monitorCommands: true });
  },
});

/** Applies `writes` in one transaction; returns the write commands sent, as [name, collection, count]. */
async function applyInTransaction(writes: Write[]): Promise<[string, string, number][]> {
  const db = client.db(fixture.db.databaseName);
  const sent: [string, string, number][] = [];
  const record = (event: CommandStartedEvent) => {
    const list = { insert: "documents", update: "updates", delete: "deletes" }[event.commandName];
    if (list && event.databaseName === db.databaseName)
      sent.push([event.commandName, event.command[event.commandName] as string, event.command[list].length]);
  };
  client.on("commandStarted", record);
  const session = client.startSession();
  try {
    await session.withTransaction(() => applyWrites(db, writes, session));
  } finally {
    client.off("commandStarted", record);
    await session.endSession();
  }
  return sent;
}

const insert = (collection: string, document: Document): Write => ({ op: "insertOne", collection, document });
const contents = (collection: string) => fixture.db.collection(collection).find().sort({ _id: 1 }).toArray();

void test("the writes of a plan go as one command per run of one kind in each collection, in order", async () => {
  const sent = await applyInTransaction([
    insert("runs_a", { _id: 1, v: 1 }),
    insert("runs_b", { _id: 1, v: 1 }),
    insert("runs_a", { _id: 2, v: 1 }),
    { op: "updateOne", collection: "runs_a", filter: { _id: 1, v: 1 }, update: { $set: { v: 2 } } },
    { op: "updateOne", collection: "runs_a", filter: { _id: 2, v: 1 }, update: { $inc: { v: 5 } } },
    { op: "deleteOne", collection: "runs_b", filter: { _id: 1 } },
    { op: "updateOne", collection: "runs_a", filter: { _id: 3 }, update: { $set: { v: 3 } }, upsert: true },
  ]);
  assert.deepEqual(sent, [
    ["insert", "runs_a", 2],
    ["update", "runs_a", 3],
    ["insert", "runs_b", 1],
    ["delete", "runs_b", 1],
  ]);
  assert.deepEqual(await contents("runs_a"), [
    { _id: 1, v: 2 },
    { _id: 2, v: 6 },
    { _id: 3, v: 3 },
  ]);
  assert.deepEqual(await contents("runs_b"), []);
});

void test("an inserted document without an _id gets one from the server, as from mongod", async () => {
  await applyInTransaction([insert("no_id", { v: 1 })]);
  const [document] = await contents("no_id");
  assert.equal(document?._id?._bsontype, "ObjectId");
});

void test("a guarded update that matches nothing throws StalePlanError and the transaction writes nothing", async () => {
  await fixture.db.collection("stale").insertOne({ _id: 1 as never, size: 3 });
  await assert.rejects(
    applyInTransaction([
      insert("stale", { _id: 2 }),
      { op: "updateOne", collection: "stale", filter: { _id: 1, size: 4 }, update: { $set: { size: 0 } } },
    ]),
    StalePlanError,
  );
  assert.deepEqual(await contents("stale"), [{ _id: 1, size: 3 }]);
});

void test("a guarded delete that removes nothing throws StalePlanError", async () => {
  await assert.rejects(
    applyInTransaction([{ op: "deleteOne", collection: "stale_delete", filter: { _id: 1 } }]),
    StalePlanError,
  );
});

void test("a write the server refuses throws its error, with the code that says why", async () => {
  await fixture.db.collection("refused").insertOne({ _id: 1 as never });
  const error = await applyInTransaction([insert("refused", { _id: 1 })]).then(
    () => assert.fail("the duplicate insert succeeded"),
    (thrown: unknown) => thrown,
  );
  assert.equal((error as { code?: unknown }).code, 11000);
  assert.equal(classify(error), "bad_document");
});

void test("writes past what one command may carry go in several commands, every one applied", async () => {
  const mebibyte = "x".repeat(1024 * 1024);
  const documents = Array.from({ length: 12 }, (_, i) => ({ _id: i, payload: mebibyte }));
  const sent = await applyInTransaction(documents.map((document) => insert("large", document)));
  assert.ok(sent.length >= 2, `one command of ${sent[0]?.[2]} documents`);
  assert.equal(
    sent.reduce((sum, [, , count]) => sum + count, 0),
    12,
  );
  const stored = await fixture.db
    .collection("large")
    .find({}, { projection: { _id: 1 } })
    .toArray();
  assert.deepEqual(
    stored.map((document) => document._id),
    documents.map((document) => document._id),
  );
});
