import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import { test } from "node:test";
import { type ClientSession, type Document } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_kill_sessions");

async function openTransactionWriting(collection: string, id: string): Promise<ClientSession> {
  const session = fixture.mongo.client.startSession();
  session.startTransaction();
  await fixture.db
    .collection(collection)
    .updateOne({ _id: id as never }, { $set: { by: "transaction" } }, { session });
  return session;
}

function killSessions(sessions: ClientSession[]): Promise<Document> {
  return fixture.mongo.client.db("admin").command({ killSessions: sessions.map((s) => ({ id: s.id!.id })) });
}

void test("killSessions aborts the session's open transaction, so its commit fails and nothing it wrote lands", async () => {
  await fixture.db.collection("killed").insertOne({ _id: "doc" as never, by: "nobody" });
  const session = await openTransactionWriting("killed", "doc");
  try {
    await killSessions([session]);
    await assert.rejects(session.commitTransaction(), { code: 251 });
  } finally {
    await session.endSession();
  }
  assert.equal((await fixture.db.collection("killed").findOne({ _id: "doc" as never }))?.by, "nobody");
});

void test("a write outside a transaction waits for a conflicting transaction and lands once killSessions aborts it", async () => {
  const collection = fixture.db.collection("waiting");
  await collection.insertOne({ _id: "doc" as never, n: 0 });
  const session = await openTransactionWriting("waiting", "doc");
  try {
    const write = collection.updateOne({ _id: "doc" as never }, { $inc: { n: 1 } });
    await killSessions([session]);
    assert.equal((await write).modifiedCount, 1);
  } finally {
    await session.endSession();
  }
  assert.deepEqual(await collection.findOne({ _id: "doc" as never }), { _id: "doc", n: 1 });
});

void test("a write outside a transaction without maxTimeMS outwaits a transaction held open for longer than five seconds", async () => {
  const collection = fixture.db.collection("patient");
  await collection.insertOne({ _id: "doc" as never, n: 0 });
  const session = await openTransactionWriting("patient", "doc");
  try {
    const write = collection.updateOne({ _id: "doc" as never }, { $inc: { n: 1 } });
    await delay(5_500);
    await session.commitTransaction();
    assert.equal((await write).modifiedCount, 1);
  } finally {
    await session.endSession();
  }
  assert.deepEqual(await collection.findOne({ _id: "doc" as never }), {
    _id: "doc",
    by: "transaction",
    n: 1,
  });
});

void test("a write outside a transaction with maxTimeMS gives up with MaxTimeMSExpired while the transaction holds the document", async () => {
  const collection = fixture.db.collection("impatient");
  await collection.insertOne({ _id: "doc" as never, n: 0 });
  const session = await openTransactionWriting("impatient", "doc");
  try {
    await assert.rejects(
      collection.updateOne({ _id: "doc" as never }, { $inc: { n: 1 } }, { maxTimeMS: 200 }),
      {
        code: 50,
      },
    );
  } finally {
    await session.abortTransaction();
    await session.endSession();
  }
});

void test("killSessions closes the session's cursors: the next getMore answers CursorNotFound", async () => {
  const collection = fixture.db.collection("cursors");
  await collection.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }] as never[]);
  const session = fixture.mongo.client.startSession();
  try {
    const reply = await fixture.db.command({ find: "cursors", batchSize: 1 }, { session });
    await killSessions([session]);
    const cursorId = (reply.cursor as Document).id as unknown;
    await assert.rejects(fixture.db.command({ getMore: cursorId, collection: "cursors" }, { session }), {
      code: 43,
    });
  } finally {
    await session.endSession();
  }
});

void test("a killed session stays usable for a new transaction", async () => {
  const collection = fixture.db.collection("reused");
  await collection.insertOne({ _id: "doc" as never, by: "nobody" });
  const session = await openTransactionWriting("reused", "doc");
  try {
    await killSessions([session]);
    await assert.rejects(session.commitTransaction());
    await session.withTransaction(async () => {
      await collection.updateOne({ _id: "doc" as never }, { $set: { by: "second" } }, { session });
    });
  } finally {
    await session.endSession();
  }
  assert.equal((await collection.findOne({ _id: "doc" as never }))?.by, "second");
});

void test("killAllSessions with an empty list aborts every open transaction", async () => {
  const collection = fixture.db.collection("all");
  await collection.insertMany([
    { _id: "a", by: "nobody" },
    { _id: "b", by: "nobody" },
  ] as never[]);
  const first = await openTransactionWriting("all", "a");
  const second = await openTransactionWriting("all", "b");
  try {
    await fixture.mongo.client.db("admin").command({ killAllSessions: [] });
    await assert.rejects(first.commitTransaction(), { code: 251 });
    await assert.rejects(second.commitTransaction(), { code: 251 });
  } finally {
    await first.endSession();
    await second.endSession();
  }
  assert.deepEqual(await collection.distinct("by"), ["nobody"]);
});

// mongod kills the operations running in a killed session with Interrupted (11601).
const INTERRUPTED = { code: 11601 };

void test("killSessions interrupts a write of the session waiting for another transaction's document", async () => {
  const collection = fixture.db.collection("interrupted_write");
  await collection.insertOne({ _id: "doc" as never, n: 0 });
  const holder = await openTransactionWriting("interrupted_write", "doc");
  const writer = fixture.mongo.client.startSession();
  try {
    const write = collection.updateOne({ _id: "doc" as never }, { $inc: { n: 1 } }, { session: writer });
    await delay(100);
    await killSessions([writer]);
    await assert.rejects(write, INTERRUPTED);
    await holder.commitTransaction();
  } finally {
    await writer.endSession();
    await holder.endSession();
  }
  assert.deepEqual(await collection.findOne({ _id: "doc" as never }), {
    _id: "doc",
    n: 0,
    by: "transaction",
  });
});

void test("killSessions interrupts a command the failCommand fail point holds with blockConnection", async (t) => {
  const appName = "blocked-by-fail-point";
  const client = await fixture.mongo.newClient({ appName });
  const admin = fixture.mongo.client.db("admin");
  await admin.command({
    configureFailPoint: "failCommand",
    mode: { times: 1 },
    data: { failCommands: ["ping"], blockConnection: true, blockTimeMS: 30_000, appName },
  });
  t.after(() => admin.command({ configureFailPoint: "failCommand", mode: "off" }));
  const session = client.startSession();
  try {
    const startedAt = Date.now();
    const ping = client.db("admin").command({ ping: 1 }, { session });
    await delay(100);
    await killSessions([session]);
    await assert.rejects(ping, INTERRUPTED);
    assert.ok(Date.now() - startedAt < 10_000, "the ping did not sleep out its 30 s");
  } finally {
    await session.endSession();
  }
});

void test("killSessions interrupts a change stream's awaiting getMore of the session", async () => {
  const session = fixture.mongo.client.startSession();
  try {
    const opened = await fixture.db.command(
      { aggregate: "awaited", pipeline: [{ $changeStream: {} }], cursor: {} },
      { session },
    );
    const cursorId = (opened.cursor as Document).id as unknown;
    const startedAt = Date.now();
    const getMore = fixture.db.command(
      { getMore: cursorId, collection: "awaited", maxTimeMS: 30_000 },
      { session },
    );
    await delay(100);
    await killSessions([session]);
    await assert.rejects(getMore, INTERRUPTED);
    assert.ok(Date.now() - startedAt < 10_000, "the getMore did not wait out its 30 s");
  } finally {
    await session.endSession();
  }
});

void test("killSessions fails a long write command of the session at its next yield, as mongod fails a batch on an interruption, keeping the statements before", async () => {
  const total = 100_000;
  const session = fixture.mongo.client.startSession();
  const other = await fixture.mongo.newClient();
  try {
    const documents = Array.from({ length: total }, (_, i) => ({ _id: i }));
    // One command (insertMany would split it and report the error as a write error).
    const write = fixture.db.command({ insert: "interrupted_batch", documents }, { session });
    const seen = other.db(fixture.db.databaseName).collection("interrupted_batch");
    while ((await seen.estimatedDocumentCount()) === 0) await delay(1);
    await killSessions([session]);
    // The whole command fails, not one statement of it with a write error.
    await assert.rejects(write, INTERRUPTED);
    const written = await seen.countDocuments();
    assert.ok(written > 0 && written < total, `${written} of ${total} inserted`);
  } finally {
    await session.endSession();
    await other.close();
  }
});
