// Which bucket a customer's loose trades may be folded into: only one of that very customer,
// whatever other customers' `_id`s share its prefix.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Double, Int32, Long, ObjectId } from "mongodb";
import { isBucketIdOf } from "../../../../src/patterns/bucket/bucket-ids.js";
import { planLooseEntryFold } from "../../../../src/patterns/bucket/loose-entries.js";
import { isOpenBucketOf, sameKey } from "../../../../src/patterns/bucket/open-bucket.js";
import { bucketRule as rule } from "../support/rules.js";

const DATE = new Date("2024-01-01T00:00:00.000Z");

void test("a bucket id of a key is the key, an underscore and digits, optionally suffixed, nothing else", () => {
  assert.equal(isBucketIdOf("p", "p_1700000000"), true);
  assert.equal(isBucketIdOf("p", "p_1700000000_000001"), true);
  assert.equal(isBucketIdOf("p", "p_0999999999"), true);
  assert.equal(isBucketIdOf("p", "p_q_1700000000"), false);
  assert.equal(isBucketIdOf("p", "p_1700000000_q"), false);
  assert.equal(isBucketIdOf("p", "p_1700000000_1"), false);
  assert.equal(isBucketIdOf("p", "p_"), false);
  assert.equal(isBucketIdOf("p", "pq_1700000000"), false);
  assert.equal(isBucketIdOf("p_q", "p_q_1700000000"), true);
  assert.equal(isBucketIdOf("116658", 116658), false);
});

void test("two keys are the same customer only when equal and of one BSON type", () => {
  assert.equal(sameKey("116658", new Int32(116658)), false);
  assert.equal(sameKey(new Int32(116658), "116658"), false);
  assert.equal(sameKey(new Int32(116658), new Int32(116658)), true);
  assert.equal(sameKey(new Int32(116658), Long.fromNumber(116658)), false);
  assert.equal(sameKey(new Double(116658), new Int32(116658)), false);
  assert.equal(sameKey(116658, new Int32(116658)), true, "a promoted int32 is an int32");
  assert.equal(sameKey("p", "p_q"), false);
  const id = new ObjectId();
  assert.equal(sameKey(id, new ObjectId(id.toHexString())), true);
  assert.equal(sameKey(id, id.toHexString()), false);
});

const openBucket = (id: string, customerId: unknown) => ({
  _id: id,
  customerId,
  count: 1,
  history: [{ ticker: "OTHER", date: new Date("2023-11-14T22:13:20Z") }],
});

void test("an open bucket is one of the key's only with the key's value, type and id shape", () => {
  assert.equal(isOpenBucketOf(rule, "p", "p", openBucket("p_1700000000", "p")), true);
  assert.equal(isOpenBucketOf(rule, "p", "p", openBucket("p_q_1700000000", "p_q")), false);
  assert.equal(isOpenBucketOf(rule, "p", "p", openBucket("p_q_1700000000", "p")), false);
  assert.equal(isOpenBucketOf(rule, new Int32(116658), "116658", openBucket("116658_1", "116658")), false);
  const full = { ...openBucket("p_1700000000", "p"), count: 10, history: Array(10).fill({ date: DATE }) };
  assert.equal(isOpenBucketOf(rule, "p", "p", full), false);
});

function foldOneLooseTradeBeside(customerId: unknown, keyText: string, other: ReturnType<typeof openBucket>) {
  return planLooseEntryFold(rule, {
    key: customerId,
    entries: [{ _id: 1, customerId, ticker: "LOOSE", date: DATE }],
    openBucket: other,
    takenIds: new Set([other._id]),
  });
}

void test("a fold handed another customer's open bucket opens a bucket of its own and leaves the other alone", () => {
  for (const [customerId, keyText, other] of [
    ["p", "p", openBucket("p_q_1700000000", "p_q")],
    [new Int32(116658), "116658", openBucket("116658_1700000000", "116658")],
    ["116658", "116658", openBucket("116658_1700000000", new Int32(116658))],
  ] as const) {
    const plan = foldOneLooseTradeBeside(customerId, keyText, other);
    assert.equal(plan.outcome, "writes");
    if (plan.outcome !== "writes") continue;
    assert.deepEqual(plan.writes, [
      {
        op: "insertOne",
        collection: "trades",
        document: {
          _id: `${keyText}_1704067200`,
          customerId,
          count: 1,
          history: [{ ticker: "LOOSE", date: DATE }],
        },
      },
      { op: "deleteOne", collection: "trades", filter: { _id: 1, history: { $exists: false } } },
    ]);
  }
});

void test("a fold handed its own customer's open bucket fills it", () => {
  const own = openBucket("p_1700000000", "p");
  const plan = foldOneLooseTradeBeside("p", "p", own);
  assert.equal(plan.outcome, "writes");
  assert.deepEqual(plan.outcome === "writes" && plan.writes[0], {
    op: "updateOne",
    collection: "trades",
    filter: { _id: "p_1700000000", history: { $size: 1 } },
    update: { $set: { history: [...own.history, { ticker: "LOOSE", date: DATE }], count: 2 } },
  });
});
