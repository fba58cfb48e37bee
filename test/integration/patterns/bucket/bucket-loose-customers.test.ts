// A loose trade is folded only into a bucket of its own customer: not into the bucket of a
// customer whose key starts with its key and "_" ("p" and "p_q"), nor into the bucket of a
// customer whose key prints the same but is of another type (the string "116658" and the
// int 116658), though both `_id`s start with "<key>_". Each test has customers of its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Int32, type Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useSidecarOnFreshDatabase } from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("bucket_loose_customers");

const trades = () => fixture.db.collection<Document>("trades");

async function bucketHolding(ticker: string): Promise<Document> {
  return waitUntil(
    async () =>
      (await trades().countDocuments({ ticker })) === 0
        ? ((await trades().findOne({ "history.ticker": ticker })) ?? undefined)
        : undefined,
    { timeoutMs: 20_000, description: `the loose trade ${ticker} to be folded into a bucket` },
  );
}

const OTHER_TRADE = { type: "buy", ticker: "OTHER", quantity: 1, date: new Date("2023-11-14T22:13:20Z") };

void test("a loose trade of customer p is not folded into the open bucket of customer p_q", async () => {
  const other = { _id: "p_q_1700000000", customerId: "p_q", count: 1, history: [OTHER_TRADE] };
  await trades().insertOne({ ...other } as Document);
  const date = new Date("2024-01-01T00:00:00.000Z");
  await trades().insertOne({ customerId: "p", ticker: "LOOSE-P", date });

  const bucket = await bucketHolding("LOOSE-P");
  assert.deepEqual(bucket, {
    _id: "p_1704067200",
    customerId: "p",
    count: 1,
    history: [{ ticker: "LOOSE-P", date }],
  });
  assert.deepEqual(await trades().findOne({ _id: "p_q_1700000000" as never }), other);
});

void test("a loose trade of the int customer 116658 is not folded into the string customer 116658's open bucket", async () => {
  const other = { _id: "116658_1700000000", customerId: "116658", count: 1, history: [OTHER_TRADE] };
  await trades().insertOne({ ...other } as Document);
  const date = new Date("2024-01-01T00:00:00.000Z");
  await trades().insertOne({ customerId: new Int32(116658), ticker: "LOOSE-INT", date });

  const bucket = await bucketHolding("LOOSE-INT");
  assert.deepEqual(bucket, {
    _id: "116658_1704067200",
    customerId: 116658,
    count: 1,
    history: [{ ticker: "LOOSE-INT", date }],
  });
  assert.deepEqual(await trades().findOne({ _id: "116658_1700000000" as never }), other);
});

void test("a loose trade of the string customer 226658 is not folded into the int customer 226658's open bucket", async () => {
  const other = { _id: "226658_1700000001", customerId: 226658, count: 1, history: [OTHER_TRADE] };
  await trades().insertOne({ ...other } as Document);
  const date = new Date("2024-01-02T00:00:00.000Z");
  await trades().insertOne({ customerId: "226658", ticker: "LOOSE-STRING", date });

  const bucket = await bucketHolding("LOOSE-STRING");
  assert.deepEqual(bucket, {
    _id: "226658_1704153600",
    customerId: "226658",
    count: 1,
    history: [{ ticker: "LOOSE-STRING", date }],
  });
  assert.deepEqual(await trades().findOne({ _id: "226658_1700000001" as never }), other);
});
