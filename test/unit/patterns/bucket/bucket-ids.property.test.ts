// Bucket `_id`s sort in time order for every date they can name, across the epoch's digit
// boundaries (2001-09-09T01:46:40Z, where whole seconds go from 9 to 10 digits, and the
// epoch itself, before which they are negative): the seed's `find({ _id: /^123_/ })
// .sort({ _id: 1 })` compares them as strings. Dates they cannot order are refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Document } from "mongodb";
import {
  baseBucketId,
  bucketIdAllocator,
  LAST_BUCKET_DATE,
} from "../../../../src/patterns/bucket/bucket-ids.js";
import { planLooseEntryFold } from "../../../../src/patterns/bucket/loose-entries.js";
import { planBucketSplit } from "../../../../src/patterns/bucket/planner.js";
import { bucketRule as rule } from "../support/rules.js";

const S = 1000;
const TEN_DIGITS = 1_000_000_000 * S;

// Whole seconds near each boundary, and anywhere between, in milliseconds since the epoch.
const near = (at: number) => fc.integer({ min: at - 5_000 * S, max: at + 5_000 * S });
const orderable = fc.oneof(
  near(0).filter((ms) => ms >= 0),
  near(TEN_DIGITS),
  near(LAST_BUCKET_DATE.getTime()).filter((ms) => ms <= LAST_BUCKET_DATE.getTime()),
  fc.integer({ min: 0, max: LAST_BUCKET_DATE.getTime() }),
);

/** MongoDB's order of string `_id`s (simple collation): by UTF-8 bytes, as JS compares ASCII. */
const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

void test("new bucket ids of a key, allocated in time order, sort as strings in time order across digit boundaries", () => {
  fc.assert(
    fc.property(fc.array(orderable, { minLength: 2, maxLength: 40 }), (times) => {
      const dates = times.sort((a, b) => a - b).map((ms) => new Date(ms));
      const allocate = bucketIdAllocator([]);
      const ids = dates.map((date) => allocate(baseBucketId("123", date)!)!);
      assert.deepEqual([...ids].sort(byId), ids);
    }),
  );
});

void test("a bucket id is the key, an underscore and ten digits of whole seconds", () => {
  assert.equal(baseBucketId("123", new Date("2023-10-26T15:47:03.434Z")), "123_1698335223");
  assert.equal(baseBucketId("123", new Date("2001-09-09T01:46:39.999Z")), "123_0999999999");
  assert.equal(baseBucketId("123", new Date(0)), "123_0000000000");
  assert.equal(baseBucketId("123", LAST_BUCKET_DATE), "123_9999999999");
});

void test("dates before the epoch or past 2286-11-20T17:46:39Z name no bucket", () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.integer({ min: -8.64e15, max: -1 }),
        fc.integer({ min: LAST_BUCKET_DATE.getTime() + S, max: 8.64e15 }),
      ),
      (ms) => assert.equal(baseBucketId("123", new Date(ms)), null),
    ),
  );
});

function trades(dates: Date[]): Document[] {
  return dates.map((date, i) => ({ type: "buy", ticker: `T${i}`, quantity: 1, date }));
}

void test("a split's new buckets sort after the bucket split and in time order, whichever side of 2001-09-09 their trades are", () => {
  const first = new Date("2001-09-09T01:40:00Z").getTime();
  const history = trades(Array.from({ length: 40 }, (_, i) => new Date(first + i * 20 * S)));
  const bucket = { _id: `123_${String(first / S).padStart(10, "0")}`, customerId: 123, count: 40, history };
  const plan = planBucketSplit(rule, { bucket, takenIds: new Set() });
  assert.equal(plan.outcome, "writes");
  const ids = [
    bucket._id,
    ...(plan.outcome === "writes"
      ? plan.writes.flatMap((write) => (write.op === "insertOne" ? [String(write.document._id)] : []))
      : []),
  ];
  assert.deepEqual(ids, ["123_0999999600", "123_0999999800", "123_1000000000", "123_1000000200"]);
  assert.deepEqual([...ids].sort(byId), ids);
});

void test("a split whose new bucket would start before the epoch is skipped, saying why", () => {
  const history = trades(Array.from({ length: 11 }, (_, i) => new Date((i - 11) * S)));
  const plan = planBucketSplit(rule, {
    bucket: { _id: "123_x", customerId: 123, count: 11, history },
    takenIds: new Set(),
  });
  assert.equal(plan.outcome, "skip");
  assert.match(
    plan.outcome === "skip" ? plan.reason : "",
    /^history\[10\]\.date is 1969-12-31T23:59:59\.000Z, outside/,
  );
});

void test("a fold whose new bucket would start past 2286-11-20T17:46:39Z is skipped, saying why", () => {
  const date = new Date("2300-01-01T00:00:00Z");
  const plan = planLooseEntryFold(rule, {
    key: 123,
    entries: [{ _id: 1, customerId: 123, ticker: "LATE", date }],
    openBucket: null,
    takenIds: new Set(),
  });
  assert.equal(plan.outcome, "skip");
  assert.match(plan.outcome === "skip" ? plan.reason : "", /^date is 2300-01-01T00:00:00\.000Z, outside/);
});
