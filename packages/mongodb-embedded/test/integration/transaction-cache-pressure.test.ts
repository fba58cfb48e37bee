// setParameter embeddedTransactionCacheWrites (src/sessions/cache-pressure.ts): a transaction
// writing more documents than it allows gets WriteConflict at every attempt, as a large one
// does on mongod under cache pressure; smaller transactions and plain writes are not touched.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MongoServerError } from "mongodb";
import { useTestDatabase, withParameter } from "../support/mongo.js";

const fixture = useTestDatabase("server_cache_pressure");

const withCacheWrites = <T>(writes: number, run: () => Promise<T>) =>
  withParameter(fixture.mongo.client, "embeddedTransactionCacheWrites", writes, run);

async function insertInTransaction(collection: string, count: number): Promise<void> {
  const session = fixture.mongo.client.startSession();
  try {
    await session.withTransaction(
      async () => {
        const docs = Array.from({ length: count }, (_, i) => ({ i }));
        await fixture.db.collection(collection).insertMany(docs, { session });
      },
      { maxCommitTimeMS: 1000 },
    );
  } finally {
    await session.endSession();
  }
}

async function insertInOneAttempt(collection: string, count: number): Promise<unknown> {
  const session = fixture.mongo.client.startSession();
  try {
    session.startTransaction();
    const docs = Array.from({ length: count }, (_, i) => ({ i }));
    const inserted = await fixture.db
      .collection(collection)
      .insertMany(docs, { session })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    if (session.inTransaction()) await session.abortTransaction();
    return inserted;
  } finally {
    await session.endSession();
  }
}

void test("a transaction writing past embeddedTransactionCacheWrites gets a transient WriteConflict", async (t) => {
  if (!fixture.mongo.embedded) return t.diagnostic("a real server's cache is what it is");
  const error = await withCacheWrites(5, () => insertInOneAttempt("large", 6));
  assert.ok(error instanceof MongoServerError, String(error));
  assert.equal(error.code, 112);
  assert.ok(error.hasErrorLabel("TransientTransactionError"));
  assert.equal(await fixture.db.collection("large").countDocuments(), 0);
});

void test("transactions within embeddedTransactionCacheWrites and plain writes past it commit", async (t) => {
  if (!fixture.mongo.embedded) return t.diagnostic("a real server's cache is what it is");
  await withCacheWrites(5, async () => {
    await insertInTransaction("small", 5);
    await fixture.db.collection("plain").insertMany(Array.from({ length: 20 }, (_, i) => ({ i })));
  });
  assert.equal(await fixture.db.collection("small").countDocuments(), 5);
  assert.equal(await fixture.db.collection("plain").countDocuments(), 20);
});

void test("getParameter answers embeddedTransactionCacheWrites, 0 (off) unless set", async (t) => {
  if (!fixture.mongo.embedded) return t.diagnostic("the parameter is the embedded server's own");
  const admin = fixture.mongo.client.db("admin");
  const read = async () =>
    Number(
      (await admin.command({ getParameter: 1, embeddedTransactionCacheWrites: 1 }))
        .embeddedTransactionCacheWrites,
    );
  assert.equal(await read(), 0);
  await withCacheWrites(7, async () => assert.equal(await read(), 7));
});
