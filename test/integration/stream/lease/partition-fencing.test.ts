// A correction passes the fence of each partition of its targets (PartitionLeases as the
// correction's Fencing): a paused replica's late commit on a partition another replica took
// fails, a shared batch touching it fails whole, and its other partitions still commit.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Db } from "mongodb";
import { LeaseLostError } from "../../../../src/errors.js";
import type { CorrectionTarget } from "../../../../src/patterns/driver.js";
import type { OutlierRule } from "../../../../src/patterns/outlier/rule.js";
import { correctTarget, planAndWrite } from "../../../../src/stream/correction/correction.js";
import { runTransaction } from "../../../../src/stream/correction/transaction.js";
import { partitionLeaseId } from "../../../../src/stream/partitions/partition-leases.js";
import { partitionOfTarget } from "../../../../src/stream/partitions/target-partition.js";
import { correctionContext, fencedPartitions, insertBook, testConfig } from "../../../support/harness.js";
import { useTestDatabase, type TestMongo } from "../../../support/mongo.js";

const STATE = "pattern_sidecar_state";
const PARTITIONS = 16;

const fixture = useTestDatabase("partition_fencing", {
  setUp: async ({ db }) => {
    await db.createCollection(STATE);
    await db.createCollection("extra_sales");
  },
});

/** Replica a holds every partition but one book's, which b took while a was paused. */
async function takenWhilePaused(db: Db, mongo: TestMongo) {
  await Promise.all([STATE, "sales", "extra_sales"].map((name) => db.collection(name).deleteMany({})));
  const rule = testConfig(db.databaseName).rules.find((r): r is OutlierRule => r.pattern === "outlier")!;
  const book = (id: number): CorrectionTarget => ({ role: "outlier-source", rule, collection: "sales", id });
  const [lost, kept] = [book(1), book(2)];
  const lostPartition = partitionOfTarget(lost, PARTITIONS);
  assert.notEqual(partitionOfTarget(kept, PARTITIONS), lostPartition, "two books of two partitions");
  const a = fencedPartitions(mongo.client, db, "a");
  await a.leases.round();
  await db
    .collection(STATE)
    .updateMany(
      { _id: { $in: ["member.a", partitionLeaseId(lostPartition)] as never[] } },
      { $set: { expiresAt: new Date(0) } },
    );
  const b = fencedPartitions(mongo.client, db, "b");
  await b.leases.round();
  assert.deepEqual(b.leases.owned(), [lostPartition], "b took only the expired partition");
  await insertBook(db, 1, 70);
  await insertBook(db, 2, 70);
  const context = correctionContext(mongo.client, db, { lease: a.leases, sessions: a.sessions });
  const close = () => Promise.all([a.sessions.close(), b.sessions.close()]);
  return { rule, lost, kept, lostPartition, context, close };
}

const purchasers = async (db: Db, id: number) =>
  ((await db.collection("sales").findOne({ _id: id as never }))?.customers_purchased as unknown[]).length;

const lostLeaseOf = (partition: number) => (error: unknown) =>
  error instanceof LeaseLostError && error.context.lease === partitionLeaseId(partition);

void test("a paused replica's correction on a partition another took fails; its own still commit", async () => {
  const { db, mongo } = fixture;
  const { rule, lost, kept, lostPartition, context, close } = await takenWhilePaused(db, mongo);
  await assert.rejects(correctTarget(context, lost), lostLeaseOf(lostPartition));
  await correctTarget(context, kept);
  assert.equal(await purchasers(db, 1), 70, "nothing written on the partition b took");
  assert.equal(await purchasers(db, 2), rule.threshold, "a's own partition corrected");
  await close();
});

void test("a shared batch passes every partition's fence, and fails whole when one is lost", async () => {
  const { db, mongo } = fixture;
  const { kept, lost, lostPartition, context, close } = await takenWhilePaused(db, mongo);
  const inOneTransaction = (targets: CorrectionTarget[]) =>
    runTransaction(
      (work) => context.sessions!.withSession(work),
      { maxAttempts: 1 },
      (session) => planAndWrite(context, targets, session),
    );
  await assert.rejects(inOneTransaction([kept, lost]), lostLeaseOf(lostPartition));
  assert.equal(await purchasers(db, 2), 70, "the batch's other partition undone with it");
  await close();
});
