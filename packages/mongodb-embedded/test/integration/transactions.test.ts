import assert from "node:assert/strict";
import { test } from "node:test";
import { MongoServerError } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_txn");

void test("withTransaction commits every write of the callback together", async () => {
  const accounts = fixture.db.collection("accounts");
  await accounts.insertMany([
    { _id: "a" as never, balance: 100 },
    { _id: "b" as never, balance: 0 },
  ]);
  const session = fixture.mongo.client.startSession();
  try {
    await session.withTransaction(async () => {
      await accounts.updateOne({ _id: "a" as never }, { $inc: { balance: -30 } }, { session });
      await accounts.updateOne({ _id: "b" as never }, { $inc: { balance: 30 } }, { session });
    });
  } finally {
    await session.endSession();
  }
  const balances = await accounts.find().sort({ _id: 1 }).toArray();
  assert.deepEqual(
    balances.map((d) => d.balance),
    [70, 30],
  );
});

void test("a transaction's writes are invisible outside it until commit", async () => {
  const items = fixture.db.collection("pending");
  const session = fixture.mongo.client.startSession();
  try {
    session.startTransaction();
    await items.insertOne({ _id: 1 as never }, { session });
    assert.equal(await items.countDocuments({}), 0);
    await session.commitTransaction();
  } finally {
    await session.endSession();
  }
  assert.equal(await items.countDocuments({}), 1);
});

void test("an aborted transaction leaves nothing behind", async () => {
  const items = fixture.db.collection("aborted");
  const session = fixture.mongo.client.startSession();
  try {
    session.startTransaction();
    await items.insertOne({ _id: 1 as never }, { session });
    await session.abortTransaction();
  } finally {
    await session.endSession();
  }
  assert.equal(await items.countDocuments({}), 0);
});

void test("an error thrown in the callback aborts the transaction", async () => {
  const items = fixture.db.collection("thrown");
  const session = fixture.mongo.client.startSession();
  try {
    await assert.rejects(
      session.withTransaction(async () => {
        await items.insertOne({ _id: 1 as never }, { session });
        throw new Error("application changed its mind");
      }),
      /changed its mind/,
    );
  } finally {
    await session.endSession();
  }
  assert.equal(await items.countDocuments({}), 0);
});

void test("a transaction does not see a commit made after its snapshot", async () => {
  const items = fixture.db.collection("snapshot");
  await items.insertOne({ _id: 1 as never, v: "old" });
  const session = fixture.mongo.client.startSession();
  try {
    session.startTransaction({ readConcern: { level: "snapshot" } });
    assert.equal((await items.findOne({ _id: 1 as never }, { session }))?.v, "old");
    await items.updateOne({ _id: 1 as never }, { $set: { v: "new" } });
    assert.equal((await items.findOne({ _id: 1 as never }, { session }))?.v, "old");
    await session.commitTransaction();
  } finally {
    await session.endSession();
  }
  assert.equal((await items.findOne({ _id: 1 as never }))?.v, "new");
});

void test("a second transaction writing the same document gets a transient WriteConflict", async () => {
  const items = fixture.db.collection("conflict");
  await items.insertOne({ _id: 1 as never, n: 0 });
  const first = fixture.mongo.client.startSession();
  const second = fixture.mongo.client.startSession();
  try {
    first.startTransaction();
    second.startTransaction();
    await items.updateOne({ _id: 1 as never }, { $inc: { n: 1 } }, { session: first });
    await assert.rejects(
      items.updateOne({ _id: 1 as never }, { $inc: { n: 1 } }, { session: second }),
      (error: unknown) => {
        assert.ok(error instanceof MongoServerError);
        assert.equal(error.code, 112);
        assert.ok(error.hasErrorLabel("TransientTransactionError"));
        return true;
      },
    );
    await first.commitTransaction();
    await second.abortTransaction().catch(() => undefined);
  } finally {
    await first.endSession();
    await second.endSession();
  }
  assert.equal((await items.findOne({ _id: 1 as never }))?.n, 1);
});

void test("two concurrent withTransaction increments of one document both end applied", async () => {
  const items = fixture.db.collection("retried");
  await items.insertOne({ _id: 1 as never, n: 0 });
  const increment = async (label: string) => {
    const session = fixture.mongo.client.startSession();
    try {
      await session.withTransaction(async () => {
        const doc = await items.findOne({ _id: 1 as never }, { session });
        // Give the other transaction time to write in between, so that the two conflict.
        await new Promise((resolve) => setTimeout(resolve, 20));
        await items.updateOne(
          { _id: 1 as never },
          { $set: { n: (doc?.n ?? 0) + 1, [label]: true } },
          { session },
        );
      });
    } finally {
      await session.endSession();
    }
  };
  await Promise.all([increment("first"), increment("second")]);
  const doc = await items.findOne({ _id: 1 as never });
  assert.equal(doc?.n, 2);
  assert.equal(doc?.first, true);
  assert.equal(doc?.second, true);
});

void test("a write outside any transaction waits for the transaction holding the document", async () => {
  const items = fixture.db.collection("waiting");
  await items.insertOne({ _id: 1 as never, n: 0 });
  const session = fixture.mongo.client.startSession();
  try {
    session.startTransaction();
    await items.updateOne({ _id: 1 as never }, { $inc: { n: 10 } }, { session });
    const outside = items.updateOne({ _id: 1 as never }, { $inc: { n: 1 } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await session.commitTransaction();
    await outside;
  } finally {
    await session.endSession();
  }
  assert.equal((await items.findOne({ _id: 1 as never }))?.n, 11);
});

void test("a delete outside any transaction waits for it, then removes only what still matches", async () => {
  const items = fixture.db.collection("waiting_delete");
  await items.insertMany([
    { _id: 1 as never, k: 1 },
    { _id: 2 as never, k: 1 },
  ]);
  const session = fixture.mongo.client.startSession();
  try {
    session.startTransaction();
    await items.updateOne({ _id: 1 as never }, { $set: { k: 2 } }, { session });
    const outside = items.deleteMany({ k: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await session.commitTransaction();
    assert.equal((await outside).deletedCount, 1);
  } finally {
    await session.endSession();
  }
  assert.deepEqual(await items.find().toArray(), [{ _id: 1, k: 2 }]);
});

void test("committing twice answers ok the second time", async () => {
  const items = fixture.db.collection("recommit");
  const session = fixture.mongo.client.startSession();
  try {
    session.startTransaction();
    await items.insertOne({ _id: 1 as never }, { session });
    await session.commitTransaction();
    await session.commitTransaction();
  } finally {
    await session.endSession();
  }
  assert.equal(await items.countDocuments({}), 1);
});
