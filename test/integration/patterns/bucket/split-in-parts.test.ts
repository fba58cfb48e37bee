// A split too large for one transaction (mongod under cache pressure answers WriteConflict at
// every attempt; the embedded server models it: setParameter embeddedTransactionCacheWrites)
// is made in parts, each a transaction of its own: every entry lands once, in time order.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  SIDECAR_APP_NAME,
  startSidecar,
  testConfig,
  turnFailPointOff,
  type TestSidecar,
} from "../../../support/harness.js";

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
  setUp: async ({ mongo }) => {
    if (mongo.embedded) await setCacheWrites(CACHE_WRITES);
    sidecar = await startSidecar(mongo, config());
  },
  tearDown: async () => {
    await sidecar?.stop();
    if (fixture.mongo.embedded) await setCacheWrites(0);
  },
});

const config = () => testConfig(fixture.db.databaseName, { maxTransactionAttempts: 2 });

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

const bucketsOf = (customerId: number) =>
  fixture.db.collection<Bucket>("trades").find({ customerId }).sort({ _id: 1 }).toArray();

async function splitBuckets(customerId: number): Promise<Bucket[] | undefined> {
  const buckets = await bucketsOf(customerId);
  const done =
    buckets.length === TRADES / 10 && buckets.every((b) => b.history.length === 10 && b.count === 10);
  return done ? buckets : undefined;
}

/** Inserts a bucket of TRADES trades for `customerId`; returns them. */
async function insertLargeBucket(customerId: number): Promise<Document[]> {
  const trades = Array.from({ length: TRADES }, (_, i) => trade(i));
  const _id = `${customerId}_${(trades[0]!.date as Date).getTime() / 1000}`;
  await fixture.db
    .collection<Bucket>("trades")
    .insertOne({ _id, customerId, count: TRADES, history: trades });
  return trades;
}

async function assertSplitOnceInOrder(customerId: number, trades: Document[]): Promise<void> {
  const buckets = await waitUntil(() => splitBuckets(customerId), {
    description: "the bucket split into buckets of 10",
  });
  assert.deepEqual(
    buckets.flatMap((bucket) => bucket.history.map((entry) => entry.qty as number)),
    trades.map((entry) => entry.qty),
  );
  const parked = await fixture.db
    .collection("pattern_sidecar_state")
    .countDocuments({ "_id.parked": { $exists: true } });
  assert.equal(parked, 0);
}

void test("a split too large for one transaction is made in parts, every trade once and in time order", async () => {
  await assertSplitOnceInOrder(7, await insertLargeBucket(7));
});

// The sidecar's commits fail from the second on (its first is the first part): it is stopped
// between parts, and the next one, resuming before the bucket's event, makes the rest.
void test("a sidecar stopped between two parts leaves a bucket the next sidecar splits the rest of", async (t) => {
  if (!fixture.mongo.embedded) return t.diagnostic("a real server commits this split whole");
  const admin = fixture.mongo.client.db("admin");
  const { count } = await admin.command({
    configureFailPoint: "failCommand",
    mode: { skip: 1 },
    data: { failCommands: ["commitTransaction"], errorCode: 13, appName: SIDECAR_APP_NAME },
  });
  try {
    const trades = await insertLargeBucket(8);
    await admin.command({
      waitForFailPoint: "failCommand",
      timesEntered: Number(count) + 1,
      maxTimeMS: 10_000,
    });
    await sidecar!.stop();
    const [first, ...moved] = await bucketsOf(8);
    assert.ok(moved.length > 0 && moved.length < TRADES / 10 - 1, `${moved.length} buckets moved`);
    assert.equal(first!.history.length, TRADES - 10 * moved.length);
    await turnFailPointOff(fixture.mongo);
    sidecar = await startSidecar(fixture.mongo, config());
    await assertSplitOnceInOrder(8, trades);
  } finally {
    await turnFailPointOff(fixture.mongo);
  }
});
