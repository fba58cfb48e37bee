import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { MongoServerError, MongoWriteConcernError, type Document } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_failpoints");
afterEach(async () => {
  await failCommand("off");
});

function failCommand(mode: unknown, data?: Document): Promise<Document> {
  return fixture.mongo.client
    .db("admin")
    .command({ configureFailPoint: "failCommand", mode, ...(data ? { data } : {}) });
}

/** A fresh client so that retries and pools of one test do not leak into another. */
async function retryingClient(appName: string) {
  return fixture.mongo.newClient({ appName, retryWrites: true });
}

void test("a retried insert after a dropped connection stores the document exactly once", async () => {
  const client = await retryingClient("retry-insert");
  await failCommand(
    { times: 1 },
    { failCommands: ["insert"], closeConnection: true, appName: "retry-insert" },
  );
  const collection = client.db(fixture.db.databaseName).collection("retried");
  await collection.insertOne({ _id: "only-once" as never });
  assert.equal(await collection.countDocuments({ _id: "only-once" as never }), 1);
});

void test("repeating a retryable insert with the same txnNumber returns the first result without inserting again", async () => {
  const session = fixture.mongo.client.startSession();
  try {
    const insert = { insert: "dedup", documents: [{ _id: 1 }, { _id: 2 }], txnNumber: 7 };
    const first = await fixture.db.command(insert, { session });
    const repeat = await fixture.db.command(insert, { session });
    assert.equal(first.n, 2);
    assert.equal(repeat.n, 2);
    assert.equal(repeat.writeErrors, undefined);
  } finally {
    await session.endSession();
  }
  assert.equal(await fixture.db.collection("dedup").countDocuments({}), 2);
});

void test("{times: 2} fails the next two matching commands and then lets them through", async () => {
  await failCommand({ times: 2 }, { failCommands: ["ping"], errorCode: 2 });
  await assert.rejects(fixture.db.command({ ping: 1 }), { code: 2 });
  await assert.rejects(fixture.db.command({ ping: 1 }), { code: 2 });
  assert.equal((await fixture.db.command({ ping: 1 })).ok, 1);
});

void test("{skip: 1} lets the first matching command through and fails the ones after", async () => {
  await failCommand({ skip: 1 }, { failCommands: ["ping"], errorCode: 2 });
  assert.equal((await fixture.db.command({ ping: 1 })).ok, 1);
  await assert.rejects(fixture.db.command({ ping: 1 }), { code: 2 });
  await assert.rejects(fixture.db.command({ ping: 1 }), { code: 2 });
});

void test("alwaysOn keeps failing until the fail point is turned off", async () => {
  await failCommand("alwaysOn", { failCommands: ["ping"], errorCode: 2 });
  await assert.rejects(fixture.db.command({ ping: 1 }), { code: 2 });
  await assert.rejects(fixture.db.command({ ping: 1 }), { code: 2 });
  await failCommand("off");
  assert.equal((await fixture.db.command({ ping: 1 })).ok, 1);
});

void test("commands not listed in failCommands are not affected", async () => {
  await failCommand("alwaysOn", { failCommands: ["find"], errorCode: 2 });
  assert.equal((await fixture.db.command({ ping: 1 })).ok, 1);
});

void test("explicit errorLabels are returned as given", async () => {
  await failCommand({ times: 1 }, { failCommands: ["ping"], errorCode: 2, errorLabels: ["SomeLabel"] });
  await assert.rejects(fixture.db.command({ ping: 1 }), (error: unknown) => {
    assert.ok(error instanceof MongoServerError);
    assert.deepEqual(error.errorLabels, ["SomeLabel"]);
    return true;
  });
});

void test("a retryable error code on a retryable write is retried by the driver", async () => {
  const client = await retryingClient("retry-code");
  await failCommand({ times: 1 }, { failCommands: ["insert"], errorCode: 91, appName: "retry-code" });
  const collection = client.db(fixture.db.databaseName).collection("retry_code");
  await collection.insertOne({ _id: 1 as never });
  assert.equal(await collection.countDocuments({}), 1);
});

void test("a retryable error on a retryable write carries the RetryableWriteError label", async () => {
  const client = await fixture.mongo.newClient({ appName: "no-retry", retryWrites: false });
  await failCommand({ times: 1 }, { failCommands: ["insert"], errorCode: 91, appName: "no-retry" });
  const session = client.startSession();
  try {
    // With an explicit txnNumber the insert is a retryable write even though the client will not retry it.
    const reply = client
      .db(fixture.db.databaseName)
      .command({ insert: "labels", documents: [{ _id: 1 }], txnNumber: 1 }, { session });
    await assert.rejects(reply, (error: unknown) => {
      assert.ok(error instanceof MongoServerError);
      assert.equal(error.code, 91);
      assert.ok(error.hasErrorLabel("RetryableWriteError"));
      return true;
    });
  } finally {
    await session.endSession();
  }
});

void test("blockConnection delays the command and then runs it", async () => {
  await failCommand({ times: 1 }, { failCommands: ["ping"], blockConnection: true, blockTimeMS: 100 });
  const reply = await fixture.db.command({ ping: 1 });
  assert.equal(reply.ok, 1);
});

void test("writeConcernError is reported alongside a successful write", async () => {
  await failCommand(
    { times: 1 },
    {
      failCommands: ["insert"],
      writeConcernError: {
        code: 64,
        codeName: "WriteConcernFailed",
        errmsg: "waiting for replication timed out",
      },
    },
  );
  await assert.rejects(fixture.db.command({ insert: "wce", documents: [{ _id: 1 }] }), (error: unknown) => {
    assert.ok(error instanceof MongoWriteConcernError);
    assert.equal(error.code, 64);
    return true;
  });
  assert.equal(await fixture.db.collection("wce").countDocuments({}), 1);
});

void test("failGetMoreAfterCursorCheckout fails a query cursor's getMore with its code", async () => {
  // A client of its own: an earlier test numbered a pooled session's writes by hand.
  const client = await retryingClient("getmore-fail");
  const collection = client.db(fixture.db.databaseName).collection("getmore_fail");
  await collection.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }] as never[]);
  const admin = fixture.mongo.client.db("admin");
  const cursor = collection.find({}, { batchSize: 1 });
  await cursor.next();
  await admin.command({
    configureFailPoint: "failGetMoreAfterCursorCheckout",
    mode: { times: 1 },
    data: { errorCode: 2 },
  });
  try {
    await assert.rejects(cursor.toArray(), { code: 2 });
  } finally {
    await admin.command({ configureFailPoint: "failGetMoreAfterCursorCheckout", mode: "off" });
    await cursor.close();
  }
});

void test("failGetMoreAfterCursorCheckout with a resumable code on a change stream makes it resume without losing an event", async () => {
  const collection = fixture.db.collection("getmore_resume");
  const admin = fixture.mongo.client.db("admin");
  const stream = collection.watch([], { maxAwaitTimeMS: 100 });
  try {
    await stream.tryNext();
    await admin.command({
      configureFailPoint: "failGetMoreAfterCursorCheckout",
      mode: { times: 1 },
      data: { errorCode: 6 },
    });
    await collection.insertOne({ _id: "after" as never });
    const change = (await stream.next()) as Document;
    assert.deepEqual(change.documentKey, { _id: "after" });
  } finally {
    await admin.command({ configureFailPoint: "failGetMoreAfterCursorCheckout", mode: "off" });
    await stream.close();
  }
});

void test("waitForFailPoint returns once the point has been entered the given number of times in all", async () => {
  const { count } = await failCommand("alwaysOn", { failCommands: ["ping"], errorCode: 2 });
  const admin = fixture.mongo.client.db("admin");
  const waited = admin.command({
    waitForFailPoint: "failCommand",
    timesEntered: Number(count) + 2,
    maxTimeMS: 10_000,
  });
  await assert.rejects(fixture.db.command({ ping: 1 }), { code: 2 });
  await assert.rejects(fixture.db.command({ ping: 1 }), { code: 2 });
  assert.equal((await waited).ok, 1);
  const again = await failCommand("off");
  assert.equal(Number(again.count), Number(count) + 2);
});

void test("waitForFailPoint fails with MaxTimeMSExpired when the point is not entered in time", async () => {
  const { count } = await failCommand("alwaysOn", { failCommands: ["ping"], errorCode: 2 });
  await assert.rejects(
    fixture.mongo.client
      .db("admin")
      .command({ waitForFailPoint: "failCommand", timesEntered: Number(count) + 1, maxTimeMS: 50 }),
    { code: 50 },
  );
});
