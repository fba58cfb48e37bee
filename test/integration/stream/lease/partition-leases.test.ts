// Leases of other ids than the writer lease's are held, taken over and fenced each on its own,
// as a partition's is: a replica that lost one partition's lease cannot commit a
// correction under it, while its corrections under a partition it still holds commit; and a
// replica that led (fenced by the writer lease) cannot commit once a partition of it was taken.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LeaseLostError } from "../../../../src/errors.js";
import type { OutlierRule } from "../../../../src/patterns/outlier/rule.js";
import { correctTarget } from "../../../../src/stream/correction/correction.js";
import { WriterLease } from "../../../../src/stream/lease/lease.js";
import { SessionPool } from "../../../../src/stream/lease/session-pool.js";
import { correctionContext, insertBook, testConfig } from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";

const STATE = "pattern_sidecar_state";

const fixture = useTestDatabase("partition_leases", {
  setUp: async ({ db }) => {
    await db.createCollection(STATE);
    await db.createCollection("extra_sales");
  },
});

void test("taking over one partition's lease fences only the corrections under it", async () => {
  const { db, mongo } = fixture;
  const rule = testConfig(db.databaseName).rules.find((r): r is OutlierRule => r.pattern === "outlier")!;
  const sessions = new SessionPool(mongo.client, 2);
  const leaseOf = (holder: string, partition: number, over = sessions) =>
    new WriterLease(db, STATE, holder, 30, {
      sessionIds: () => over.ids,
      leaseId: `lease.partition.${partition}`,
    });
  const [first, second] = [leaseOf("a", 0), leaseOf("a", 1)];
  assert.equal(await first.acquireOrRenew(), true);
  assert.equal(await second.acquireOrRenew(), true, "a lease of another id is not held by the first");
  await db
    .collection(STATE)
    .updateOne({ _id: "lease.partition.1" as never }, { $set: { expiresAt: new Date(0) } });
  const taker = new SessionPool(mongo.client, 1);
  assert.equal(await leaseOf("b", 1, taker).acquireOrRenew(), true);

  await insertBook(db, 1, 70);
  await insertBook(db, 2, 70);
  const target = (id: number) => ({ role: "outlier-source", rule, collection: "sales", id });
  await assert.rejects(
    correctTarget(correctionContext(mongo.client, db, { lease: second, sessions }), target(1)),
    (error: unknown) => error instanceof LeaseLostError && error.context.lease === "lease.partition.1",
  );
  await correctTarget(correctionContext(mongo.client, db, { lease: first, sessions }), target(2));
  const lengthOf = async (id: number) =>
    ((await db.collection("sales").findOne({ _id: id as never }))?.customers_purchased as unknown[]).length;
  assert.equal(await lengthOf(1), 70, "nothing written under the lost partition");
  assert.equal(await lengthOf(2), rule.threshold, "the held partition's correction committed");
  const fences = await db.collection(STATE).countDocuments({ _id: /^lease\.partition\.0\.fence\./ as never });
  assert.equal(fences, 2, "each partition has its own fence documents");
  await Promise.all([sessions.close(), taker.close()]);
});

void test("taking a partition from a replica that led fences off its writer lease's corrections", async () => {
  const { db, mongo } = fixture;
  const rule = testConfig(db.databaseName).rules.find((r): r is OutlierRule => r.pattern === "outlier")!;
  const sessions = new SessionPool(mongo.client, 2);
  // "lead" holds the writer lease and, as a lead does, a partition's lease on the same sessions.
  const writer = new WriterLease(db, STATE, "lead", 30, { sessionIds: () => sessions.ids });
  const partitionOf = (holder: string, over: SessionPool) =>
    new WriterLease(db, STATE, holder, 30, {
      sessionIds: () => over.ids,
      leaseId: "lease.partition.5",
      fencesOffWriter: true,
    });
  assert.equal(await writer.acquireOrRenew(), true);
  assert.equal(await partitionOf("lead", sessions).acquireOrRenew(), true);
  await insertBook(db, 31, 70);
  await insertBook(db, 32, 70);
  const target = (id: number) => ({ role: "outlier-source", rule, collection: "sales", id });
  await correctTarget(correctionContext(mongo.client, db, { lease: writer, sessions }), target(31));

  // Paused past its leases, by the server's clock; its own clock has not noticed.
  await db
    .collection(STATE)
    .updateMany(
      { _id: { $in: ["lease", "lease.partition.5"] as never[] } },
      { $set: { expiresAt: new Date(0) } },
    );
  const taker = new SessionPool(mongo.client, 1);
  assert.equal(await partitionOf("taker", taker).acquireOrRenew(), true);
  await assert.rejects(
    correctTarget(correctionContext(mongo.client, db, { lease: writer, sessions }), target(32)),
    (error: unknown) => error instanceof LeaseLostError,
  );
  const lengthOf = async (id: number) =>
    ((await db.collection("sales").findOne({ _id: id as never }))?.customers_purchased as unknown[]).length;
  assert.equal(await lengthOf(31), rule.threshold, "corrected while it led");
  assert.equal(await lengthOf(32), 70, "nothing written once a partition of it was taken");
  await Promise.all([sessions.close(), taker.close()]);
});
