import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LeaseLostError } from "../../../../src/errors.js";
import { correctTarget } from "../../../../src/stream/correction/correction.js";
import { LEASE_ID } from "../../../../src/stream/lease/lease.js";
import { useTestDatabase, type TestDatabase } from "../../../support/mongo.js";
import { correctionContext, fencedLease, insertBook, testConfig } from "../../../support/harness.js";
import type { OutlierRule } from "../../../../src/patterns/outlier/rule.js";

const STATE = "pattern_sidecar_state";

const setUp = async ({ db }: TestDatabase) => {
  await db.createCollection(STATE);
  await db.createCollection("extra_sales");
};
const fixture = useTestDatabase("fencing", { setUp });

/** Ends the lease by the server's clock, as if its holder had slept through its renewals. */
async function expireLease({ db }: TestDatabase): Promise<void> {
  await db.collection(STATE).updateOne({ _id: LEASE_ID as never }, { $set: { expiresAt: new Date(0) } });
}

async function assertTakenOverLeaderCannotCommit(database: TestDatabase): Promise<void> {
  const { db, mongo } = database;
  const config = testConfig(db.databaseName);
  const rule = config.rules.find((r): r is OutlierRule => r.pattern === "outlier")!;
  const leader = fencedLease(mongo.client, db, "old-leader");
  assert.equal(await leader.lease.acquireOrRenew(), true);
  await insertBook(db, 1, 70);
  // Another replica takes over, while the old leader still counts the lease held by its clock.
  await expireLease(database);
  assert.equal(await fencedLease(mongo.client, db, "new-leader").lease.acquireOrRenew(), true);

  const context = correctionContext(mongo.client, db, leader);
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
  await fixture.db.collection(STATE).deleteOne({ _id: LEASE_ID as never });
  const holder = fencedLease(fixture.mongo.client, fixture.db, "a").lease;
  const other = fencedLease(fixture.mongo.client, fixture.db, "b").lease;
  assert.equal(await holder.acquireOrRenew(), true);
  assert.equal(await other.acquireOrRenew(), false);
  await holder.release();
  assert.equal(await other.acquireOrRenew(), true, "a released lease is free at once");
});
