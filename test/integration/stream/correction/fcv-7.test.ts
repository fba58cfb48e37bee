// An 8.0 deployment in the middle of an upgrade (binaries 8.0, featureCompatibilityVersion still
// 7.0) offers wire version 25 but refuses the bulkWrite command. The first correction that meets
// the refusal is redone with one write command per collection, as on 7.0, and so is every later
// one: nothing is lost or written twice, and the sidecar says so once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { allPurchasers, useSidecarOnFreshDatabase, users } from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("fcv_7", {}, { serverVersion: "8.0" });

type Book = { _id: number; customers_purchased: string[] };

async function pushPastThreshold(id: number): Promise<void> {
  const sales = fixture.db.collection<Book>("sales");
  await sales.insertOne({ _id: id, customers_purchased: [] });
  for (let i = 0; i < 120; i += 40)
    await sales.updateOne({ _id: id }, { $push: { customers_purchased: { $each: users(i, i + 40) } } });
  await waitUntil(
    async () =>
      (await sales.findOne({ _id: id }))?.customers_purchased.length === 50 &&
      (await allPurchasers(fixture.db, id)).length === 120,
    { description: `book ${id} to hold 50 buyers and 70 extras` },
  );
}

void test("at featureCompatibilityVersion 7.0 corrections fall back from bulkWrite, exactly", async (t) => {
  // The FCV of a real replica set is every other test's too: changed only on an embedded server.
  if (!fixture.mongo.embedded) return t.diagnostic("changing the FCV is tested on the embedded server");
  const admin = fixture.mongo.client.db("admin");
  await admin.command({ setFeatureCompatibilityVersion: "7.0", confirm: true });
  try {
    for (const id of [1, 2]) {
      await pushPastThreshold(id);
      const book = await fixture.db.collection<Book>("sales").findOne({ _id: id });
      assert.deepEqual(book?.customers_purchased, users(0, 50));
      assert.deepEqual(await allPurchasers(fixture.db, id), users(0, 120));
    }
  } finally {
    await admin.command({ setFeatureCompatibilityVersion: "8.0", confirm: true });
  }
  const refusals = fixture.sidecar.logs.filter((line) =>
    String(line.msg).startsWith("the server refuses bulkWrite"),
  );
  assert.equal(refusals.length, 1, "the fallback is logged once");
});
