import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LeaseLostError } from "../../../../src/errors.js";
import { correctTarget } from "../../../../src/stream/correction/correction.js";
import { LEASE_ID, WriterLease } from "../../../../src/stream/lease/lease.js";
import { useTestDatabase, type TestDatabase } from "../../../support/mongo.js";
import { correctionContext, insertBook, testConfig } from "../../../support/harness.js";
import type { OutlierRule } from "../../../../src/patterns/outlier/rule.js";

const setUp = async ({ db }: TestDatabase) => {
  await db.createCollection("state");
  await db.createCollection("extra_sales");
};
const fixture = useTestDatabase("fencing", { setUp });

async function assertTakenOverLeaderCannotCommit({ db, mongo }: TestDatabase): Promise<void> {
  const config = testConfig(db.databaseName);
  const rule = config.rules.find((r): r is OutlierRule => r.pattern === "outlier")!;
  const lease = new WriterLease(db, "state", "old-leader", 30);
  assert.equal(await lease.acquireOrRenew(), true);
  await insertBook(db, 1, 70);
  // Another replica takes over (as after an expiry the old leader slept through).
  await db
    .collection("state")
    .updateOne({ _id: LEASE_ID as never }, { $set: { holder: "new-leader" }, $inc: { term: 1 } });

  const context = correctionContext(mongo.client, db, lease);
  await assert.rejects(
    correctTarget(context, { role: "outlier-source", rule, collection: "sales", id: 1 }),
    LeaseLostError,
  );
  const book = await db.collection("sales").findOne({ _id: 1 as never });
  assert.equal((book?.customers_purchased as unknown[]).length, 70, "nothing was written");
  assert.equal(await db.collection("extra_sales").countDocuments(), 0);
}

// The fence goes with the writes in one bulkWrite (8.0), or as a command of its own (7.0).
void test("a leader whose lease was taken over cannot commit a correction", () =>
  assertTakenOverLeaderCannotCommit(fixture));

void describe("on MongoDB 7.0", () => {
  const older = useTestDatabase("fencing_7_0", { setUp, serverVersion: "7.0" });
  void test("a leader whose lease was taken over cannot commit a correction", () =>
    assertTakenOverLeaderCannotCommit(older));
});

void test("a second replica cannot take a lease that has not expired", async () => {
  const holder = new WriterLease(fixture.db, "state2", "a", 30);
  const other = new WriterLease(fixture.db, "state2", "b", 30);
  assert.equal(await holder.acquireOrRenew(), true);
  assert.equal(await other.acquireOrRenew(), false);
  await holder.release();
  assert.equal(await other.acquireOrRenew(), true, "a released lease is free at once");
});
