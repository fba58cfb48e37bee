// Collections and indexes created inside transactions, as MongoDB 4.4 and later allow: the
// transaction's own until it commits, gone if it aborts; explicit creation only under
// readConcern "local"; new indexes only on a collection the same transaction created.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ClientSession, TransactionOptions } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_txn_ddl");

async function withOpenTransaction<T>(
  work: (session: ClientSession) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const session = fixture.mongo.client.startSession();
  session.startTransaction(options);
  try {
    return await work(session);
  } finally {
    if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
    await session.endSession();
  }
}

async function collectionNames(): Promise<string[]> {
  return (await fixture.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
}

void test("a collection created in a transaction that aborts never existed", async () => {
  await withOpenTransaction(async (session) => {
    await fixture.db.createCollection("aborted_create", { session });
    await fixture.db.collection("aborted_create").insertOne({ a: 1 }, { session });
  });
  assert.ok(!(await collectionNames()).includes("aborted_create"));
});

void test("a collection an insert creates in a transaction is invisible outside it until it commits", async () => {
  const session = fixture.mongo.client.startSession();
  try {
    session.startTransaction();
    await fixture.db.collection("implicit_create").insertOne({ _id: 1 as never }, { session });
    assert.ok(!(await collectionNames()).includes("implicit_create"));
    await session.commitTransaction();
  } finally {
    await session.endSession();
  }
  assert.ok((await collectionNames()).includes("implicit_create"));
  assert.deepEqual(await fixture.db.collection("implicit_create").find().toArray(), [{ _id: 1 }]);
});

void test("an index created on a collection the same transaction created is there after the commit", async () => {
  const session = fixture.mongo.client.startSession();
  try {
    session.startTransaction();
    await fixture.db.collection("indexed_in_txn").createIndex({ b: 1 }, { session });
    await fixture.db.collection("indexed_in_txn").insertOne({ b: 1 }, { session });
    await session.commitTransaction();
  } finally {
    await session.endSession();
  }
  const names = (await fixture.db.collection("indexed_in_txn").indexes()).map((index) => index.name);
  assert.deepEqual(names.sort(), ["_id_", "b_1"]);
});

void test("a new index on a collection that existed before the transaction is refused with OperationNotSupportedInTransaction", async () => {
  await fixture.db.collection("existing").insertOne({ a: 1 });
  await fixture.db.collection("existing").createIndex({ a: 1 });
  await withOpenTransaction(async (session) => {
    // One that already exists is fine.
    await fixture.db.collection("existing").createIndex({ a: 1 }, { session });
    await assert.rejects(fixture.db.collection("existing").createIndex({ b: 1 }, { session }), { code: 263 });
  });
});

void test("create and createIndexes in a transaction with readConcern snapshot fail with InvalidOptions", async () => {
  const snapshot: TransactionOptions = { readConcern: { level: "snapshot" } };
  await withOpenTransaction(
    (session) => assert.rejects(fixture.db.createCollection("snapshot_create", { session }), { code: 72 }),
    snapshot,
  );
  await withOpenTransaction(
    (session) =>
      assert.rejects(fixture.db.collection("snapshot_index").createIndex({ a: 1 }, { session }), {
        code: 72,
      }),
    snapshot,
  );
  assert.deepEqual(
    (await collectionNames()).filter((name) => name.startsWith("snapshot_")),
    [],
  );
});

void test("a write outside a transaction to a collection the transaction is creating keeps its document when the transaction aborts", async () => {
  await withOpenTransaction(async (session) => {
    await fixture.db.collection("shared_create").insertOne({ _id: "in" as never }, { session });
    await fixture.db.collection("shared_create").insertOne({ _id: "out" as never });
  });
  assert.deepEqual(await fixture.db.collection("shared_create").find().toArray(), [{ _id: "out" }]);
});
