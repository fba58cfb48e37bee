// bulkWrite (MongoDB 8.0) through the driver's client.bulkWrite, which reads its replies as it
// reads mongod's; and its absence from a 7.0 server. Against MONGODB_URI, the release the
// server reports decides which of the two a test expects.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  MongoClientBulkWriteError,
  MongoServerError,
  type Db,
  type Document,
  type MongoClient,
} from "mongodb";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../support/mongo.js";

const WIRE_VERSION_8_0 = 25;

let mongo: TestMongo;
let db: Db;
let supportsBulkWrite: boolean;

before(async () => {
  mongo = await startTestMongo({ serverVersion: "8.0" });
  db = mongo.client.db(uniqueDatabaseName("server_bulk_write"));
  supportsBulkWrite = (await maxWireVersion(mongo.client)) >= WIRE_VERSION_8_0;
});
after(async () => {
  await db.dropDatabase();
  await mongo.close();
});

async function maxWireVersion(client: MongoClient): Promise<number> {
  return Number((await client.db("admin").command({ hello: 1 })).maxWireVersion);
}

/** These tests' documents take numbers and strings as _id, not the driver's default ObjectId. */
type Schemas = Record<string, { _id: number | string; n?: number; v?: string; x?: number }>;

function ns(collection: string): `${string}.${string}` {
  return `${db.databaseName}.${collection}`;
}

void test("the release the server reports agrees with its wire version", async () => {
  const info = await mongo.client.db("admin").command({ buildInfo: 1 });
  const major = Number((info.versionArray as number[])[0]);
  assert.equal(major >= 8, supportsBulkWrite, `version ${String(info.version)}`);
  if (mongo.embedded) assert.deepEqual([info.version, await maxWireVersion(mongo.client)], ["8.0.0", 25]);
});

void test("one bulkWrite inserts, updates and deletes across collections, with each op's result", async () => {
  if (!supportsBulkWrite) return assertCommandNotFound(mongo.client);
  await db.collection("b").insertMany([
    { _id: 1, x: 1 },
    { _id: 2, x: 2 },
  ] as never[]);
  const result = await mongo.client.bulkWrite<Schemas>(
    [
      { namespace: ns("a"), name: "insertOne", document: { _id: 10, v: "new" } },
      { namespace: ns("b"), name: "updateOne", filter: { _id: 1 }, update: { $inc: { x: 10 } } },
      { namespace: ns("b"), name: "updateOne", filter: { _id: 9 }, update: { $set: { x: 9 } }, upsert: true },
      { namespace: ns("b"), name: "updateOne", filter: { _id: 404 }, update: { $set: { x: 0 } } },
      { namespace: ns("b"), name: "deleteOne", filter: { _id: 2 } },
    ],
    { verboseResults: true },
  );
  assert.deepEqual(
    [
      result.insertedCount,
      result.matchedCount,
      result.modifiedCount,
      result.upsertedCount,
      result.deletedCount,
    ],
    [1, 1, 1, 1, 1],
  );
  assert.deepEqual(result.updateResults?.get(1), { matchedCount: 1, modifiedCount: 1, didUpsert: false });
  assert.deepEqual(result.updateResults?.get(2), {
    matchedCount: 1,
    modifiedCount: 0,
    didUpsert: true,
    upsertedId: 9,
  });
  assert.deepEqual(result.updateResults?.get(3), { matchedCount: 0, modifiedCount: 0, didUpsert: false });
  assert.deepEqual(result.deleteResults?.get(4), { deletedCount: 1 });
  assert.deepEqual(await db.collection("a").find().toArray(), [{ _id: 10, v: "new" }]);
  assert.deepEqual(await db.collection("b").find().sort({ _id: 1 }).toArray(), [
    { _id: 1, x: 11 },
    { _id: 9, x: 9 },
  ]);
});

void test("an ordered bulkWrite stops at its first failed op and reports which", async () => {
  if (!supportsBulkWrite) return assertCommandNotFound(mongo.client);
  await db.collection("ordered").insertOne({ _id: 1 } as never);
  const failure = await mongo.client
    .bulkWrite<Schemas>([
      { namespace: ns("ordered"), name: "insertOne", document: { _id: 2 } },
      { namespace: ns("ordered"), name: "insertOne", document: { _id: 1 } },
      { namespace: ns("ordered"), name: "insertOne", document: { _id: 3 } },
    ])
    .then(
      () => assert.fail("a duplicate _id must fail the bulkWrite"),
      (error: unknown) => error,
    );
  assert.ok(failure instanceof MongoClientBulkWriteError);
  assert.deepEqual([...failure.writeErrors.keys()], [1]);
  assert.equal(failure.writeErrors.get(1)?.code, 11000);
  assert.equal(failure.partialResult?.insertedCount, 1);
  const ids = (await db.collection("ordered").find().sort({ _id: 1 }).toArray()).map((doc) => doc._id);
  assert.deepEqual(ids, [1, 2]);
});

void test("a bulkWrite in a transaction commits with it, or not at all when an op fails", async () => {
  if (!supportsBulkWrite) return assertCommandNotFound(mongo.client);
  const collection = db.collection("in_txn");
  await collection.insertOne({ _id: 1, n: 0 } as never);
  const session = mongo.client.startSession();
  try {
    session.startTransaction();
    await mongo.client.bulkWrite<Schemas>(
      [
        { namespace: ns("in_txn"), name: "updateOne", filter: { _id: 1 }, update: { $inc: { n: 1 } } },
        { namespace: ns("in_txn_other"), name: "insertOne", document: { _id: "x" } },
      ],
      { session },
    );
    assert.equal((await collection.findOne({ _id: 1 } as never))?.n, 0, "not visible before the commit");
    await session.commitTransaction();
    assert.equal((await collection.findOne({ _id: 1 } as never))?.n, 1);
    assert.equal(await db.collection("in_txn_other").countDocuments(), 1);

    session.startTransaction();
    await assert.rejects(
      mongo.client.bulkWrite<Schemas>(
        [
          { namespace: ns("in_txn"), name: "updateOne", filter: { _id: 1 }, update: { $inc: { n: 1 } } },
          { namespace: ns("in_txn_other"), name: "insertOne", document: { _id: "x" } },
        ],
        { session },
      ),
      MongoClientBulkWriteError,
    );
    await session.abortTransaction();
    assert.equal(
      (await collection.findOne({ _id: 1 } as never))?.n,
      1,
      "the failed transaction wrote nothing",
    );
  } finally {
    await session.endSession();
  }
});

void test("bulkWrite runs only on the admin database", async () => {
  if (!supportsBulkWrite) return assertCommandNotFound(mongo.client);
  const command = { bulkWrite: 1, ops: [{ insert: 0, document: { _id: 1 } }], nsInfo: [{ ns: ns("x") }] };
  await assert.rejects(db.command(command), (error: unknown) => error instanceof MongoServerError);
  assert.equal(await db.collection("x").countDocuments(), 0);
});

void test("a 7.0 server does not know bulkWrite", async (t) => {
  if (!mongo.embedded) return t.diagnostic("the 7.0 emulation is the embedded server's");
  const old = await startTestMongo({ serverVersion: "7.0" });
  try {
    assert.equal(await maxWireVersion(old.client), 21);
    await assertCommandNotFound(old.client);
  } finally {
    await old.close();
  }
});

void test("an 8.0 server set back to featureCompatibilityVersion 7.0 refuses bulkWrite until set to 8.0 again", async (t) => {
  // Its own server: a real replica set's FCV is shared with every other test running on it.
  if (!mongo.embedded) return t.diagnostic("changing the FCV is tested on an embedded server of its own");
  const upgrading = await startTestMongo({ serverVersion: "8.0" });
  const admin = upgrading.client.db("admin");
  const fcv = async () =>
    ((await admin.command({ getParameter: 1, featureCompatibilityVersion: 1 })) as Document)
      .featureCompatibilityVersion;
  const insert = { bulkWrite: 1, ops: [{ insert: 0, document: { _id: 1 } }], nsInfo: [{ ns: "fcv.books" }] };
  try {
    assert.deepEqual(await fcv(), { version: "8.0" });
    await assert.rejects(admin.command({ setFeatureCompatibilityVersion: "7.0" }), { code: 7369100 });
    await assert.rejects(admin.command({ setFeatureCompatibilityVersion: "6.0", confirm: true }), {
      code: 2,
    });
    await admin.command({ setFeatureCompatibilityVersion: "7.0", confirm: true });
    assert.deepEqual(await fcv(), { version: "7.0" });
    assert.equal(await maxWireVersion(upgrading.client), WIRE_VERSION_8_0, "the binary is still 8.0");
    await assert.rejects(admin.command(insert), { code: 115, codeName: "CommandNotSupported" });
    await admin.command({ setFeatureCompatibilityVersion: "8.0", confirm: true });
    assert.equal((await admin.command(insert)).nInserted, 1);
  } finally {
    await upgrading.close();
  }
});

async function assertCommandNotFound(client: MongoClient): Promise<void> {
  await assert.rejects(
    client.db("admin").command({ bulkWrite: 1, ops: [], nsInfo: [] }),
    (error: unknown) => error instanceof MongoServerError && error.code === 59,
  );
}

void test("a retryable bulkWrite failing with a retryable code gets RetryableWriteError, so the driver retries it", async () => {
  if (!supportsBulkWrite) return assertCommandNotFound(mongo.client);
  // mongod labels it (error_labels.cpp): a retryable code on a command with txnNumber, no autocommit.
  const client = await mongo.newClient({ appName: "bulk-write-retry", retryWrites: true });
  await mongo.client.db("admin").command({
    configureFailPoint: "failCommand",
    mode: { times: 1 },
    data: { failCommands: ["bulkWrite"], errorCode: 189, appName: "bulk-write-retry" },
  });
  const result = await client.bulkWrite<Schemas>([
    { namespace: ns("retried"), name: "insertOne", document: { _id: 1 } },
  ]);
  assert.equal(result.insertedCount, 1);
  assert.deepEqual(await db.collection("retried").find({}).toArray(), [{ _id: 1 }]);
});

void test("a bulkWrite with a multi op is no retryable write: the same code fails it unlabelled", async () => {
  if (!supportsBulkWrite) return assertCommandNotFound(mongo.client);
  const client = await mongo.newClient({ appName: "bulk-write-multi", retryWrites: true });
  await mongo.client.db("admin").command({
    configureFailPoint: "failCommand",
    mode: { times: 1 },
    data: { failCommands: ["bulkWrite"], errorCode: 189, appName: "bulk-write-multi" },
  });
  const failure = await client
    .bulkWrite<Schemas>([{ namespace: ns("multi"), name: "deleteMany", filter: {} }])
    .then(
      () => assert.fail("the bulkWrite should fail"),
      (error: unknown) => error,
    );
  assert.ok(failure instanceof MongoClientBulkWriteError);
  const cause = failure.cause as MongoServerError;
  assert.deepEqual([cause.code, cause.errorLabels], [189, []]);
});
