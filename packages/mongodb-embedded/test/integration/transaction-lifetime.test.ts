// transactionLifetimeLimitSeconds as mongod has it: a startup and runtime parameter (at least 1,
// src/mongo/db/transaction/transaction_participant.idl), whose reaper aborts a transaction once
// it is past the limit, checking every half the limit
// (src/mongo/db/periodic_runner_job_abort_expired_transactions.cpp).
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { MongoServerError, type Db } from "mongodb";
import { startTestMongo, useTestDatabase, withParameter } from "../support/mongo.js";

const fixture = useTestDatabase("server_transaction_lifetime");

const withLifetimeLimit = <T>(seconds: number, run: () => Promise<T>) =>
  withParameter(fixture.mongo.client, "transactionLifetimeLimitSeconds", seconds, run);

async function lifetimeLimit(db: Db): Promise<number> {
  const reply = await db.admin().command({ getParameter: 1, transactionLifetimeLimitSeconds: 1 });
  return Number(reply.transactionLifetimeLimitSeconds);
}

const isNoSuchTransaction = (error: unknown) => error instanceof MongoServerError && error.code === 251;

void test("setParameter changes transactionLifetimeLimitSeconds and answers the value it had", async () => {
  const before = await lifetimeLimit(fixture.db);
  await withLifetimeLimit(17, async () => assert.equal(await lifetimeLimit(fixture.db), 17));
  assert.equal(await lifetimeLimit(fixture.db), before);
});

void test("setParameter refuses a transactionLifetimeLimitSeconds below 1 with BadValue", async () => {
  await assert.rejects(
    fixture.mongo.client.db("admin").command({ setParameter: 1, transactionLifetimeLimitSeconds: 0 }),
    (error) => error instanceof MongoServerError && error.code === 2,
  );
});

// The default limit has the reaper look every 30 s: the test ends within its timeout only if
// lowering the limit also shortened that period, as mongod's parameter observer does.
void test(
  "a transaction outliving a lowered limit is aborted by the server and nothing it wrote lands",
  { timeout: 15_000 },
  async () => {
    const collection = fixture.db.collection("reaped");
    await withLifetimeLimit(1, async () => {
      const session = fixture.mongo.client.startSession();
      try {
        session.startTransaction();
        await collection.insertOne({ _id: "doc" as never }, { session });
        // Each statement of the transaction fails with NoSuchTransaction once the reaper aborted it.
        for (;;) {
          await sleep(250);
          const read = await collection.findOne({}, { session }).then(
            () => undefined,
            (error: unknown) => error,
          );
          if (read !== undefined) {
            assert.ok(isNoSuchTransaction(read), `expected NoSuchTransaction, got ${String(read)}`);
            break;
          }
        }
        await assert.rejects(session.commitTransaction(), isNoSuchTransaction);
      } finally {
        await session.endSession();
      }
    });
    assert.equal(await collection.countDocuments(), 0);
  },
);

void test("a transaction keeps the expiry date it started with when the limit is lowered later", async () => {
  const session = fixture.mongo.client.startSession();
  try {
    session.startTransaction();
    await fixture.db.collection("kept").insertOne({ _id: "doc" as never }, { session });
    // Past the lowered limit and at least one of its reaper's passes, not past the first limit.
    await withLifetimeLimit(1, () => sleep(2_500));
    await session.commitTransaction();
  } finally {
    await session.endSession();
  }
  assert.equal(await fixture.db.collection("kept").countDocuments(), 1);
});

void test("a server started with transactionLifetimeLimitSeconds reports it", async (t) => {
  const mongo = await startTestMongo({ transactionLifetimeLimitSeconds: 7 });
  try {
    if (!mongo.embedded) return t.diagnostic("a real deployment's startup parameters are its own");
    assert.equal(await lifetimeLimit(mongo.client.db("admin")), 7);
  } finally {
    await mongo.close();
  }
});
