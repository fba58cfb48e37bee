// A split too large for one transaction (mongod under cache pressure answers WriteConflict at
// every attempt; the embedded server models it: setParameter embeddedTransactionCacheWrites)
// is made in parts, each a transaction of its own: every entry lands once, in time order.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { startSidecar, testConfig, type TestSidecar } from "../../../support/harness.js";

interface Bucket {
  _id: string;
  customerId: number;
  count: number;
  history: Document[];
}

/** Writes past which the server's modelled cache rolls a transaction back. */
const CACHE_WRITES = 40;
const TRADES = 1_010;
const HOUR = 3_600_000;

let sidecar: TestSidecar | undefined;
const fixture = useTestDatabase("bucket_split_in_parts", {
  setUp: async ({ mongo, db }) => {
    if (mongo.embedded) await setCacheWrites(CACHE_WRITES);
    sidecar = await startSidecar(mongo, testConfig(db.databaseName, { maxTransactionAttempts: 2 }));
  },
  tearDown: async () => {
    await sidecar?.stop();
    if (fixture.mongo.embedded) await setCacheWrites(0);
  },
});

function setCacheWrites(writes: number) {
  return fixture.mongo.client
    .db("admin")
    .command({ setParameter: 1, embeddedTransactionCacheWrites: writes });
}

function trade(i: number): Document {
  return {
    type: i % 2 ? "sell" : "buy",
    ticker: "MDB",
    qty: i + 1,
    date: new Date(Date.UTC(2023, 0, 1) + i * HOUR),
  };
}

async function splitBuckets(): Promise<Bucket[] | undefined> {
  const buckets = await fixture.db
    .collection<Bucket>("trades")
    .find({ customerId: 7 })
    .sort({ _id: 1 })
    .toArray();
  const done =
    buckets.length === TRADES / 10 && buckets.every((b) => b.history.length === 10 && b.count === 10);
  return done ? buckets : undefined;
}

void test("a split too large for one transaction is made in parts, every trade once and in time order", async () => {
  const trades = Array.from({ length: TRADES }, (_, i) => trade(i));
  await fixture.db.collection<Bucket>("trades").insertOne({
    _id: `7_${trades[0]!.date.getTime() / 1000}`,
    customerId: 7,
    count: TRADES,
    history: trades,
  });

  const buckets = await waitUntil(splitBuckets, { description: "the bucket split into buckets of 10" });
  assert.deepEqual(
    buckets.flatMap((bucket) => bucket.history.map((entry) => entry.qty as number)),
    trades.map((entry) => entry.qty),
  );
  const parked = await fixture.db
    .collection("pattern_sidecar_state")
    .countDocuments({ "_id.parked": { $exists: true } });
  assert.equal(parked, 0);
});
