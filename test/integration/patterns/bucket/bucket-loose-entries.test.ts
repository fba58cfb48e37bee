// Applications that still write the bucket seed's schema before buckets (one document per
// trade in `trades`) beside applications that use the seed's upsert: the sidecar folds each
// loose trade into a bucket and deletes it in one transaction.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { metricTotal, useSidecarOnFreshDatabase } from "../../../support/harness.js";
import { seedUpsert } from "../../../support/seed-upsert.js";

const fixture = useSidecarOnFreshDatabase("bucket_loose");

const trades = () => fixture.db.collection("trades");
const MINUTE = 60_000;

// The seed's own three documents, as its schema before buckets stores them.
const SEED_TRADES = [
  { ticker: "MDB", customerId: 123, type: "buy", quantity: 419, date: new Date("2023-10-26T15:47:03.434Z") },
  { ticker: "MDB", customerId: 123, type: "sell", quantity: 29, date: new Date("2023-10-30T09:32:57.765Z") },
  { ticker: "GOOG", customerId: 456, type: "buy", quantity: 50, date: new Date("2023-10-31T11:16:02.120Z") },
];

function withoutKey({ customerId: _key, ...entry }: Document): Document {
  return entry;
}

async function waitForNoLooseTrades(): Promise<Document[]> {
  return waitUntil(
    async () => {
      const all = await trades().find().sort({ _id: 1 }).toArray();
      return all.every((doc) => Array.isArray(doc.history)) ? all : undefined;
    },
    { timeoutMs: 20_000, description: "every loose trade to be folded into a bucket" },
  );
}

void test("the seed's three loose trades written one by one become its two buckets, named by their first trade", async () => {
  for (const doc of SEED_TRADES) await trades().insertOne({ ...doc });
  const buckets = await waitForNoLooseTrades();
  const seedBuckets = buckets.filter((doc) => doc.customerId === 123 || doc.customerId === 456);
  assert.deepEqual(seedBuckets, [
    {
      _id: "123_1698335223",
      customerId: 123,
      count: 2,
      history: [withoutKey(SEED_TRADES[0]!), withoutKey(SEED_TRADES[1]!)],
    },
    { _id: "456_1698750962", customerId: 456, count: 1, history: [withoutKey(SEED_TRADES[2]!)] },
  ]);
  const folded = await metricTotal(fixture.sidecar.metrics.corrections, {
    collection: "trades",
    kind: "folded",
  });
  assert.ok(folded > 0, "counted as folded");
});

function trade(customerId: number, i: number): Document {
  return {
    type: i % 2 ? "sell" : "buy",
    ticker: `${customerId}-${i}`,
    quantity: i + 1,
    date: new Date(Date.UTC(2023, 10, 1) + i * MINUTE),
  };
}

void test("loose trades written beside the seed's upserts are each kept exactly once, verbatim, in buckets of at most 10", async () => {
  const customerId = 789;
  const count = 60;
  // Even trades through the seed's upsert, odd ones as loose documents, all at once.
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      i % 2 === 0
        ? seedUpsert(trades() as never, customerId, trade(customerId, i))
        : trades().insertOne({ customerId, ...trade(customerId, i) }),
    ),
  );
  const all = await waitForNoLooseTrades();
  const buckets = all.filter((doc) => doc.customerId === customerId);
  const entries = buckets.flatMap((bucket) => bucket.history as Document[]);
  assert.deepEqual(
    entries.map((entry) => entry.ticker as string).sort(),
    Array.from({ length: count }, (_, i) => `${customerId}-${i}`).sort(),
  );
  for (const entry of entries) {
    const i = Number(String(entry.ticker).split("-")[1]);
    assert.deepEqual(entry, trade(customerId, i), `trade ${i} kept verbatim`);
  }
  for (const bucket of buckets) {
    assert.match(String(bucket._id), new RegExp(`^${customerId}_`));
    assert.ok((bucket.history as Document[]).length <= 10, `bucket ${String(bucket._id)} within bounds`);
    assert.equal(bucket.count, (bucket.history as Document[]).length);
  }
});
