// On MongoDB 7.0, which has no bulkWrite command, a correction fences with a command of its
// own and writes with one command per collection (apply.ts); the outcome is the same as
// through bulkWrite on 8.0, which the rest of the suite runs on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MongoServerError } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { allPurchasers, useSidecarOnFreshDatabase, users } from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("mongodb_7", {}, { serverVersion: "7.0" });

void test("the embedded server as 7.0 refuses bulkWrite", async (t) => {
  if (!fixture.mongo.embedded) return t.diagnostic("a real server is the release it is");
  await assert.rejects(
    fixture.mongo.client.db("admin").command({ bulkWrite: 1, ops: [], nsInfo: [] }),
    (error: unknown) => error instanceof MongoServerError && error.code === 59,
  );
});

void test("a book past the threshold is corrected without bulkWrite: user00..user49 stay, the rest move in order", async () => {
  const sales = fixture.db.collection<{ _id: number; customers_purchased: string[] }>("sales");
  await sales.insertOne({ _id: 1, customers_purchased: [] });
  for (let i = 0; i < 300; i += 50)
    await sales.updateOne({ _id: 1 }, { $push: { customers_purchased: { $each: users(i, i + 50) } } });
  await waitUntil(
    async () =>
      (await sales.findOne({ _id: 1 }))?.customers_purchased.length === 50 &&
      (await allPurchasers(fixture.db, 1)).length === 300,
    { description: "book 1 to hold 50 buyers and 250 extras" },
  );
  const book = await sales.findOne({ _id: 1 });
  assert.deepEqual(book?.customers_purchased, users(0, 50));
  assert.deepEqual(await allPurchasers(fixture.db, 1), users(0, 300));
});
