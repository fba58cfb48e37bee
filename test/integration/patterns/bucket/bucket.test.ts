import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useSidecarOnFreshDatabase } from "../../../support/harness.js";

interface Bucket {
  _id: string;
  customerId: number;
  count: number;
  history: Document[];
}

const fixture = useSidecarOnFreshDatabase("bucket");

const HOUR = 3_600_000;

function trade(customerStart: number, i: number): Document {
  return {
    type: i % 2 ? "sell" : "buy",
    ticker: "MDB",
    qty: i + 1,
    date: new Date(customerStart + i * HOUR),
  };
}

function bucketsOf(customerId: number) {
  return fixture.db
    .collection<Bucket>("trades")
    .find({ _id: new RegExp(`^${customerId}_`) })
    .sort({ _id: 1 })
    .toArray();
}

async function waitForBucketCount(customerId: number, expected: number): Promise<Bucket[]> {
  return waitUntil(
    async () => {
      const buckets = await bucketsOf(customerId);
      return buckets.length === expected && buckets.every((b) => b.history.length <= 10)
        ? buckets
        : undefined;
    },
    { description: `customer ${customerId} to have ${expected} buckets` },
  );
}

void test("a bucket pushed to 25 trades becomes buckets of 10, 10 and 5 in time order", async () => {
  const start = Date.UTC(2023, 9, 26, 15, 47, 3);
  const trades = Array.from({ length: 25 }, (_, i) => trade(start, i));
  const firstId = `123_${start / 1000}`;
  await fixture.db
    .collection<Bucket>("trades")
    .insertOne({ _id: firstId, customerId: 123, count: 2, history: trades.slice(0, 2) });
  await fixture.db
    .collection<Bucket>("trades")
    .updateOne({ _id: firstId }, { $push: { history: { $each: trades.slice(2) } }, $inc: { count: 23 } });

  const buckets = await waitForBucketCount(123, 3);
  assert.deepEqual(
    buckets.map((b) => [b._id, b.count, b.history.length]),
    [
      [firstId, 10, 10],
      [`123_${(start + 10 * HOUR) / 1000}`, 10, 10],
      [`123_${(start + 20 * HOUR) / 1000}`, 5, 5],
    ],
  );
  assert.deepEqual(
    buckets.flatMap((b) => b.history),
    trades,
  );
});

void test("the seed's paging query returns the buckets in time order", async () => {
  const pages: Document[][] = [];
  for (let k = 0; k < 3; k++) {
    const [page] = await fixture.db
      .collection<Bucket>("trades")
      .find({ _id: /^123_/ })
      .sort({ _id: 1 })
      .skip(k)
      .limit(1)
      .toArray();
    pages.push(page!.history);
  }
  const dates = pages.flat().map((t) => (t.date as Date).getTime());
  assert.deepEqual(
    dates,
    [...dates].sort((a, b) => a - b),
  );
  assert.equal(dates.length, 25);
});

void test("the seed's guarded upsert keeps landing in the bucket with room", async () => {
  const date = new Date(Date.UTC(2023, 10, 2, 11, 43, 10));
  await fixture.db.collection<Bucket>("trades").updateOne(
    { _id: /^123_/, count: { $lt: 10 } } as never,
    {
      $push: { history: { type: "buy", ticker: "MSFT", qty: 42, date } },
      $inc: { count: 1 },
      $setOnInsert: { _id: `123_${date.getTime() / 1000}`, customerId: 123 },
    },
    { upsert: true },
  );
  const buckets = await bucketsOf(123);
  assert.deepEqual(
    buckets.map((b) => b.count),
    [10, 10, 6],
  );
});

void test("a bucket whose count disagrees with its history is repaired", async () => {
  const start = Date.UTC(2024, 0, 1);
  const id = `456_${start / 1000}`;
  await fixture.db
    .collection<Bucket>("trades")
    .insertOne({ _id: id, customerId: 456, count: 7, history: [trade(start, 0), trade(start, 1)] });
  await waitUntil(
    async () => (await fixture.db.collection<Bucket>("trades").findOne({ _id: id }))?.count === 2,
    {
      description: "the count to be repaired",
    },
  );
});
