// A correction's fence and writes as one bulkWrite command (MongoDB 8.0): applied in plan
// order inside the correction's transaction; a fence or a guard that matches nothing, a
// refused write and a write conflict each undo the lot and surface as the error the
// correction's retry and classification expect. Against a real server before 8.0 there is
// nothing to test here: supportsBulkWrite says so, and the corrections use apply.ts.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import type { CommandStartedEvent, MongoClient } from "mongodb";
import {
  classify,
  isRetryableTransactionError,
  LeaseLostError,
  StalePlanError,
} from "../../../../src/errors.js";
import type { Write } from "../../../../src/patterns/plan.js";
import { bulkWriteFenced, supportsBulkWrite } from "../../../../src/stream/correction/bulk-write.js";
import { useTestDatabase } from "../../../support/mongo.js";

let client: MongoClient;
const fixture = useTestDatabase("bulk_write", {
  serverVersion: "8.0",
  async setUp({ mongo, db }) {
    client = await mongo.newClient({ monitorCommands: true });
    await db.collection("lease").insertOne({ _id: "lease" as never, holder: "me", term: 3 });
  },
});

const FENCE: Extract<Write, { op: "updateOne" }> = {
  op: "updateOne",
  collection: "lease",
  filter: { _id: "lease", holder: "me", term: 3 },
  update: { $set: { holder: "me" } },
};

/** Runs the fence and `writes` in one transaction; returns the names of the commands sent. */
async function writeInTransaction(writes: Write[], fence = FENCE): Promise<string[]> {
  const db = client.db(fixture.db.databaseName);
  const sent: string[] = [];
  const record = (event: CommandStartedEvent) => sent.push(event.commandName);
  client.on("commandStarted", record);
  const session = client.startSession();
  try {
    session.startTransaction();
    try {
      await bulkWriteFenced(
        client,
        db,
        { fences: [{ write: fence, takenOver: () => new LeaseLostError("taken over", {}) }], writes },
        session,
      );
      await session.commitTransaction();
    } catch (error) {
      await session.abortTransaction();
      throw error;
    }
  } finally {
    client.off("commandStarted", record);
    await session.endSession();
  }
  return sent.filter((name) => name !== "abortTransaction");
}

async function assumeBulkWrite(t: TestContext): Promise<boolean> {
  const supported = await supportsBulkWrite(client);
  if (!supported) t.diagnostic("the server predates bulkWrite (MongoDB 8.0)");
  return supported;
}

const contents = (collection: string) => fixture.db.collection(collection).find().sort({ _id: 1 }).toArray();

void test("bulkWrite is used where the server's wire version says 8.0, as the embedded server's does", async () => {
  const hello = await client.db("admin").command({ hello: 1 });
  const expected = fixture.mongo.embedded || Number(hello.maxWireVersion) >= 25;
  assert.equal(await supportsBulkWrite(client), expected);
});

void test("the fence and every write of a plan go as one bulkWrite, applied in plan order", async (t) => {
  if (!(await assumeBulkWrite(t))) return;
  const sent = await writeInTransaction([
    { op: "insertOne", collection: "runs_a", document: { _id: 1, v: 1 } },
    { op: "insertOne", collection: "runs_b", document: { _id: 1, v: 1 } },
    { op: "updateOne", collection: "runs_a", filter: { _id: 1, v: 1 }, update: { $set: { v: 2 } } },
    { op: "deleteOne", collection: "runs_b", filter: { _id: 1 } },
    { op: "updateOne", collection: "runs_a", filter: { _id: 3 }, update: { $set: { v: 3 } }, upsert: true },
  ]);
  assert.deepEqual(sent, ["bulkWrite", "commitTransaction"]);
  assert.deepEqual(await contents("runs_a"), [
    { _id: 1, v: 2 },
    { _id: 3, v: 3 },
  ]);
  assert.deepEqual(await contents("runs_b"), []);
});

void test("a fence that matches nothing fails the correction with its own error, and nothing is written", async (t) => {
  if (!(await assumeBulkWrite(t))) return;
  const takenOver = { ...FENCE, filter: { _id: "lease", holder: "me", term: 2 } };
  await assert.rejects(
    writeInTransaction([{ op: "insertOne", collection: "fenced_out", document: { _id: 1 } }], takenOver),
    LeaseLostError,
  );
  assert.deepEqual(await contents("fenced_out"), []);
});

void test("a guarded write that matches nothing throws StalePlanError, and nothing is written", async (t) => {
  if (!(await assumeBulkWrite(t))) return;
  await fixture.db.collection("stale").insertOne({ _id: 1 as never, size: 3 });
  await assert.rejects(
    writeInTransaction([
      { op: "insertOne", collection: "stale", document: { _id: 2 } },
      { op: "updateOne", collection: "stale", filter: { _id: 1, size: 4 }, update: { $set: { size: 0 } } },
      { op: "deleteOne", collection: "stale", filter: { _id: 1 } },
    ]),
    StalePlanError,
  );
  assert.deepEqual(await contents("stale"), [{ _id: 1, size: 3 }]);
});

void test("a write the server refuses throws its error, with the code that says why", async (t) => {
  if (!(await assumeBulkWrite(t))) return;
  await fixture.db.collection("refused").insertOne({ _id: 1 as never });
  const error = await writeInTransaction([
    { op: "insertOne", collection: "refused", document: { _id: 1 } },
  ]).then(
    () => assert.fail("the duplicate insert succeeded"),
    (thrown: unknown) => thrown,
  );
  assert.equal((error as { code?: unknown }).code, 11000);
  assert.equal(classify(error), "bad_document");
});

void test("a write conflict stays a transient transaction error, for the correction to retry", async (t) => {
  if (!(await assumeBulkWrite(t))) return;
  await fixture.db.collection("contended").insertOne({ _id: 1 as never, v: 0 });
  const other = client.startSession();
  try {
    other.startTransaction();
    await client
      .db(fixture.db.databaseName)
      .collection("contended")
      .updateOne({ _id: 1 as never }, { $set: { v: 1 } }, { session: other });
    const error = await writeInTransaction([
      { op: "updateOne", collection: "contended", filter: { _id: 1 }, update: { $set: { v: 2 } } },
    ]).then(
      () => assert.fail("the conflicting write succeeded"),
      (thrown: unknown) => thrown,
    );
    assert.equal(isRetryableTransactionError(error), true, String(error));
  } finally {
    await other.abortTransaction();
    await other.endSession();
  }
  assert.deepEqual(await contents("contended"), [{ _id: 1, v: 0 }]);
});
