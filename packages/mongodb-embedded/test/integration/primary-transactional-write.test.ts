// The onPrimaryTransactionalWrite fail point, as mongod's transaction_participant.cpp runs it:
// on each write of a retryable write, close the connection (by default) and, with
// failBeforeCommitExceptionCode, fail that statement with nothing written.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { Document } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_primary_write");
afterEach(async () => {
  await primaryWriteFailPoint("off");
});

function primaryWriteFailPoint(mode: unknown, data: Document = {}): Promise<Document> {
  return fixture.mongo.client
    .db("admin")
    .command({ configureFailPoint: "onPrimaryTransactionalWrite", mode, data });
}

/** A fresh client, so that a connection the fail point closes is not another test's. */
function retryingClient(appName: string) {
  return fixture.mongo.newClient({ appName, retryWrites: true });
}

void test("with closeConnection a retryable write commits once and its retry gets the answer", async () => {
  const client = await retryingClient("primary-write-close");
  await primaryWriteFailPoint({ times: 1 });
  const collection = client.db(fixture.db.databaseName).collection("primary_write_close");
  const result = await collection.updateOne({ _id: "doc" as never }, { $inc: { n: 1 } }, { upsert: true });
  assert.equal(result.upsertedCount, 1);
  assert.deepEqual(await collection.findOne({ _id: "doc" as never }), { _id: "doc", n: 1 });
});

void test("failBeforeCommitExceptionCode without closeConnection fails a retryable write with nothing written", async () => {
  const client = await retryingClient("primary-write-fail");
  await primaryWriteFailPoint({ times: 1 }, { closeConnection: false, failBeforeCommitExceptionCode: 2 });
  const collection = client.db(fixture.db.databaseName).collection("primary_write_fail");
  await assert.rejects(collection.insertOne({ _id: "doc" as never }), { code: 2 });
  assert.equal(await collection.countDocuments({}), 0);
});

void test("failBeforeCommitExceptionCode closes the connection by default, so the driver's retry writes the document", async () => {
  const client = await retryingClient("primary-write-retry");
  await primaryWriteFailPoint({ times: 1 }, { failBeforeCommitExceptionCode: 1 });
  const collection = client.db(fixture.db.databaseName).collection("primary_write_retry");
  await collection.insertOne({ _id: "doc", x: 1 } as never);
  assert.deepEqual(await collection.find({}).toArray(), [{ _id: "doc", x: 1 }]);
});

void test("the fail point fires per statement: with skip 1 an ordered update's second statement fails uncommitted", async () => {
  const collection = fixture.db.collection("primary_write_statements");
  await collection.insertMany([{ _id: 0 }, { _id: 1 }] as never[]);
  await primaryWriteFailPoint({ skip: 1 }, { closeConnection: false, failBeforeCommitExceptionCode: 1 });
  // A client of its own: its session has numbered no write yet.
  const client = await retryingClient("primary-write-statements");
  const session = client.startSession();
  try {
    const reply = await client.db(fixture.db.databaseName).command(
      {
        update: "primary_write_statements",
        updates: [
          { q: { _id: 0 }, u: { $set: { y: 1 } } },
          { q: { _id: 1 }, u: { $set: { y: 1 } } },
        ],
        txnNumber: 1,
      },
      { session },
    );
    assert.equal(reply.nModified, 1);
    assert.deepEqual(
      (reply.writeErrors as Document[]).map(({ index, code }) => ({ index, code })),
      [{ index: 1, code: 1 }],
    );
  } finally {
    await session.endSession();
  }
  assert.deepEqual(await collection.find({}).sort({ _id: 1 }).toArray(), [{ _id: 0, y: 1 }, { _id: 1 }]);
});

/** Sends `command` twice with one txnNumber, the fail point failing its second statement the first time. */
async function retriedAfterSecondStatementFailed(appName: string, command: Document): Promise<Document[]> {
  await primaryWriteFailPoint({ skip: 1 }, { closeConnection: false, failBeforeCommitExceptionCode: 1 });
  const client = await retryingClient(appName);
  const session = client.startSession();
  const send = () => client.db(fixture.db.databaseName).command({ ...command, txnNumber: 1 }, { session });
  try {
    const first = await send();
    await primaryWriteFailPoint("off");
    return [first, await send()];
  } finally {
    await session.endSession();
  }
}

const errorIndexes = (reply: Document) =>
  ((reply.writeErrors as Document[] | undefined) ?? []).map((e) => e.index);

void test("a retried update skips the statements its first attempt executed and reports them", async () => {
  const collection = fixture.db.collection("retried_update");
  await collection.insertMany([
    { _id: 0, n: 0 },
    { _id: 1, n: 0 },
  ] as never[]);
  const increments = [0, 1].map((id) => ({ q: { _id: id }, u: { $inc: { n: 1 } } }));
  const [first, retry] = await retriedAfterSecondStatementFailed("retried-update", {
    update: "retried_update",
    updates: increments,
  });
  assert.deepEqual([first!.nModified, errorIndexes(first!)], [1, [1]]);
  assert.deepEqual([retry!.n, retry!.nModified, errorIndexes(retry!)], [2, 2, []]);
  assert.deepEqual(await collection.find({}).sort({ _id: 1 }).toArray(), [
    { _id: 0, n: 1 },
    { _id: 1, n: 1 },
  ]);
});

void test("a retried insert writes only the documents its first attempt did not, without a duplicate key", async () => {
  const documents = [0, 1, 2].map((id) => ({ _id: id }));
  const [first, retry] = await retriedAfterSecondStatementFailed("retried-insert", {
    insert: "retried_insert",
    documents,
  });
  assert.deepEqual([first!.n, errorIndexes(first!)], [1, [1]]);
  assert.deepEqual([retry!.n, errorIndexes(retry!)], [3, []]);
  assert.equal(await fixture.db.collection("retried_insert").countDocuments(), 3);
});
