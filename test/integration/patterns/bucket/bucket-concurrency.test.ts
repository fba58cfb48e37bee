// Application writers on the trades collection, all at once, while the sidecar splits:
// some follow the seed (the guarded upsert), some push without the guard. Each writer is
// one customer's session, writing its trades one after another, so that "in order" means
// that customer's arrival order.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { metricTotal, useSidecarOnFreshDatabase } from "../../../support/harness.js";
import { seedUpsert } from "../../../support/seed-upsert.js";

interface Bucket {
  _id: string;
  customerId: number;
  count: number;
  history: Document[];
}

const fixture = useSidecarOnFreshDatabase("bucket_concurrency");

const SEED_CUSTOMERS = [201, 202, 203, 204];
const NAIVE_CUSTOMERS = [301, 302, 303];
const TRADES_PER_CUSTOMER = 40;
const MINUTE = 60_000;

const trades = () => fixture.db.collection<Bucket>("trades");

// Trades a minute apart: every trade starts a bucket of its own second, as `_id`s need.
function trade(customerId: number, i: number): Document {
  return {
    type: i % 2 ? "sell" : "buy",
    ticker: `${customerId}-${i}`,
    qty: i + 1,
    date: new Date(Date.UTC(2023, 9, 26) + customerId * 1000 * MINUTE + i * MINUTE),
  };
}

// Without the guard: a batch pushed into the customer's newest bucket, full or not; every
// other batch also forgets `$inc`, leaving the count for the sidecar to repair.
async function naivePush(customerId: number, batch: Document[], withCount: boolean): Promise<void> {
  const newest = await trades().findOne(
    { _id: new RegExp(`^${customerId}_`) as never },
    { sort: { _id: -1 } },
  );
  if (newest === null) {
    const _id = `${customerId}_${(batch[0]!.date as Date).getTime() / 1000}`;
    await trades().insertOne({ _id, customerId, count: batch.length, history: batch });
    return;
  }
  const update: Document = { $push: { history: { $each: batch } } };
  if (withCount) update.$inc = { count: batch.length };
  await trades().updateOne({ _id: newest._id }, update);
}

async function seedWriter(customerId: number): Promise<void> {
  for (let i = 0; i < TRADES_PER_CUSTOMER; i++)
    await seedUpsert(trades() as never, customerId, trade(customerId, i));
}

async function naiveWriter(customerId: number): Promise<void> {
  for (let i = 0, batch = 1; i < TRADES_PER_CUSTOMER; i += batch, batch = (batch % 4) + 1) {
    const entries = Array.from({ length: Math.min(batch, TRADES_PER_CUSTOMER - i) }, (_, k) =>
      trade(customerId, i + k),
    );
    await naivePush(customerId, entries, batch % 2 === 1);
  }
}

function bucketsOf(customerId: number): Promise<Bucket[]> {
  return trades()
    .find({ _id: new RegExp(`^${customerId}_`) as never })
    .sort({ _id: 1 })
    .toArray();
}

const tickers = (buckets: Bucket[]) => buckets.flatMap((b) => b.history.map((t) => t.ticker as string));

async function waitForSettled(customerId: number): Promise<Bucket[]> {
  return waitUntil(
    async () => {
      const buckets = await bucketsOf(customerId);
      const settled =
        tickers(buckets).length === TRADES_PER_CUSTOMER &&
        buckets.every((b) => b.history.length <= 10 && b.count === b.history.length);
      return settled ? buckets : undefined;
    },
    { timeoutMs: 20_000, description: `customer ${customerId}'s buckets to be within bounds` },
  );
}

void test("trades written at once by seed upserts and unguarded pushes are each kept once, in each writer's order, in bounded buckets", async () => {
  await Promise.all([...SEED_CUSTOMERS.map(seedWriter), ...NAIVE_CUSTOMERS.map(naiveWriter)]);

  for (const customerId of [...SEED_CUSTOMERS, ...NAIVE_CUSTOMERS]) {
    const buckets = await waitForSettled(customerId);
    const expected = Array.from({ length: TRADES_PER_CUSTOMER }, (_, i) => `${customerId}-${i}`);
    assert.deepEqual(tickers(buckets), expected, `customer ${customerId}'s trades in _id order`);
    for (const bucket of buckets) {
      assert.equal(bucket.customerId, customerId);
      assert.ok(bucket.count <= 10 && bucket.count === bucket.history.length, `bucket ${bucket._id}`);
    }
  }
  const splits = await metricTotal(fixture.sidecar.metrics.corrections, {
    collection: "trades",
    kind: "split",
  });
  assert.ok(splits > 0, "the sidecar split buckets while the writers wrote");
});
