// A unique index's key is a write lock between concurrent writers, as on mongod: transactions
// adding one key conflict, and a write outside a transaction waits for the one holding it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MongoServerError, type ClientSession, type Collection } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_txn_unique");

async function uniqueOnX(name: string): Promise<Collection> {
  const collection = fixture.db.collection(name);
  await collection.createIndex({ x: 1 }, { unique: true });
  return collection;
}

async function withSessions(run: (first: ClientSession, second: ClientSession) => Promise<void>) {
  const first = fixture.mongo.client.startSession();
  const second = fixture.mongo.client.startSession();
  try {
    await run(first, second);
  } finally {
    await first.endSession();
    await second.endSession();
  }
}

function isTransientWriteConflict(error: unknown): boolean {
  assert.ok(error instanceof MongoServerError);
  assert.equal(error.code, 112);
  assert.ok(error.hasErrorLabel("TransientTransactionError"));
  return true;
}

function isDuplicateKey(error: unknown): boolean {
  assert.ok(error instanceof MongoServerError);
  assert.equal(error.code, 11000);
  return true;
}

async function xs(collection: Collection): Promise<unknown[]> {
  return (await collection.find().sort({ _id: 1 }).toArray()).map(({ _id, x }) => ({ _id, x }));
}

void test("a second transaction inserting a key the first holds gets a transient WriteConflict", async () => {
  const items = await uniqueOnX("insert_insert");
  await withSessions(async (first, second) => {
    first.startTransaction();
    second.startTransaction();
    await items.insertOne({ _id: 1 as never, x: 1 }, { session: first });
    await assert.rejects(
      items.insertOne({ _id: 2 as never, x: 1 }, { session: second }),
      isTransientWriteConflict,
    );
    await first.commitTransaction();
    await second.abortTransaction().catch(() => undefined);
  });
  assert.deepEqual(await xs(items), [{ _id: 1, x: 1 }]);
});

void test("a transaction adding a key committed after its snapshot gets a transient WriteConflict", async () => {
  const items = await uniqueOnX("snapshot_then_insert");
  await withSessions(async (first, second) => {
    first.startTransaction();
    second.startTransaction();
    await items.findOne({}, { session: first });
    await items.insertOne({ _id: 2 as never, x: 1 }, { session: second });
    await second.commitTransaction();
    await assert.rejects(
      items.insertOne({ _id: 1 as never, x: 1 }, { session: first }),
      isTransientWriteConflict,
    );
    await first.abortTransaction().catch(() => undefined);
  });
  assert.deepEqual(await xs(items), [{ _id: 2, x: 1 }]);
});

void test("an insert outside any transaction waits for the transaction holding its key, then fails with E11000", async () => {
  const items = await uniqueOnX("outside_after_commit");
  await withSessions(async (first) => {
    first.startTransaction();
    await items.insertOne({ _id: 1 as never, x: 1 }, { session: first });
    const outside = assert.rejects(items.insertOne({ _id: 2 as never, x: 1 }), isDuplicateKey);
    await first.commitTransaction();
    await outside;
  });
  assert.deepEqual(await xs(items), [{ _id: 1, x: 1 }]);
});

void test("an insert outside any transaction takes the key once the transaction holding it aborts", async () => {
  const items = await uniqueOnX("outside_after_abort");
  await withSessions(async (first) => {
    first.startTransaction();
    await items.insertOne({ _id: 1 as never, x: 1 }, { session: first });
    const outside = items.insertOne({ _id: 2 as never, x: 1 });
    await first.abortTransaction();
    await outside;
  });
  assert.deepEqual(await xs(items), [{ _id: 2, x: 1 }]);
});

void test("an insert outside any transaction does not pass a transaction's key: its maxTimeMS expires", async () => {
  const items = await uniqueOnX("outside_expires");
  await withSessions(async (first) => {
    first.startTransaction();
    await items.insertOne({ _id: 1 as never, x: 1 }, { session: first });
    await assert.rejects(items.insertOne({ _id: 2 as never, x: 1 }, { maxTimeMS: 1 }), (error: unknown) => {
      assert.ok(error instanceof MongoServerError);
      assert.equal(error.code, 50);
      return true;
    });
    await first.commitTransaction();
  });
  assert.deepEqual(await xs(items), [{ _id: 1, x: 1 }]);
});

void test("a transaction changing a document's key holds the new key until it commits", async () => {
  const items = await uniqueOnX("update_key");
  await items.insertMany([
    { _id: 1 as never, x: 1 },
    { _id: 2 as never, x: 2 },
  ]);
  await withSessions(async (first, second) => {
    first.startTransaction();
    second.startTransaction();
    await items.updateOne({ _id: 1 as never }, { $set: { x: 3 } }, { session: first });
    await assert.rejects(
      items.updateOne({ _id: 2 as never }, { $set: { x: 3 } }, { session: second }),
      isTransientWriteConflict,
    );
    const outside = assert.rejects(items.insertOne({ _id: 3 as never, x: 3 }), isDuplicateKey);
    await first.commitTransaction();
    await second.abortTransaction().catch(() => undefined);
    await outside;
  });
  await items.insertOne({ _id: 4 as never, x: 1 });
  assert.deepEqual(await xs(items), [
    { _id: 1, x: 3 },
    { _id: 2, x: 2 },
    { _id: 4, x: 1 },
  ]);
});

void test("a key a transaction deleted is free only for transactions that start after its commit", async () => {
  const items = await uniqueOnX("delete_frees");
  await items.insertOne({ _id: 1 as never, x: 1 });
  await withSessions(async (first, second) => {
    first.startTransaction();
    second.startTransaction();
    await items.findOne({}, { session: second });
    await items.deleteOne({ _id: 1 as never }, { session: first });
    await first.commitTransaction();
    await assert.rejects(items.insertOne({ _id: 2 as never, x: 1 }, { session: second }), isDuplicateKey);
    await second.abortTransaction().catch(() => undefined);
    first.startTransaction();
    await items.insertOne({ _id: 3 as never, x: 1 }, { session: first });
    await first.commitTransaction();
  });
  assert.deepEqual(await xs(items), [{ _id: 3, x: 1 }]);
});

void test("a multi-update outside a transaction waits whole for a transaction's key, writing nothing twice", async () => {
  const items = await uniqueOnX("multi_update_waits");
  await items.insertMany([
    { _id: 1 as never, x: 1, n: 0 },
    { _id: 2 as never, x: 2, n: 0 },
  ]);
  await withSessions(async (first) => {
    first.startTransaction();
    await items.insertOne({ _id: 3 as never, x: 12 }, { session: first });
    const outside = items.updateMany({ _id: { $in: [1, 2] as never[] } }, { $inc: { x: 10, n: 1 } });
    await first.abortTransaction();
    assert.equal((await outside).modifiedCount, 2);
  });
  const docs = await items.find().sort({ _id: 1 }).toArray();
  assert.deepEqual(
    docs.map(({ x, n }) => [x, n]),
    [
      [11, 1],
      [12, 1],
    ],
  );
});
