// Parked targets are retried only by the owner of their partition (key-ownership.ts): a
// replica leaves another's parked documents parked and as they are.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { OutlierRule } from "../../../../src/patterns/outlier/rule.js";
import { keysOfPartitions } from "../../../../src/stream/key-ownership.js";
import { retryParkedTargets } from "../../../../src/stream/parking/parked-retry.js";
import { ParkedTargets } from "../../../../src/stream/parking/parked-targets.js";
import { partitionOfTarget } from "../../../../src/stream/partitions/target-partition.js";
import { correctionContext, fencedLease, insertBook, testConfig } from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";

const fixture = useTestDatabase("parked_owned", {
  setUp: async ({ db }) => {
    await db.createCollection("pattern_sidecar_state");
    await db.createCollection("extra_sales");
  },
});

void test("a replica retries the parked documents of its partitions only", async () => {
  const { db, mongo } = fixture;
  const config = testConfig(db.databaseName);
  const rule = config.rules.find((r): r is OutlierRule => r.pattern === "outlier")!;
  const book = (id: number) => ({ role: "outlier-source", rule, collection: "sales", id });
  const [own, others] = [book(1), book(2)];
  assert.notEqual(partitionOfTarget(own, 16), partitionOfTarget(others, 16), "two books of two partitions");
  await insertBook(db, 1, 70);
  await insertBook(db, 2, 70);
  const parked = new ParkedTargets(db, config.stateCollection, config.rules, 0);
  await parked.park(own, new Error("refused"), 3);
  await parked.park(others, new Error("refused"), 3);
  const fenced = fencedLease(mongo.client, db, "owner");
  assert.equal(await fenced.lease.acquireOrRenew(), true);

  await retryParkedTargets(
    { ...correctionContext(mongo.client, db, fenced), parked, parkAfterAttempts: 3 },
    {
      dueOnly: false,
      shouldStop: () => false,
      owns: keysOfPartitions([partitionOfTarget(own, 16)], 16).owns,
    },
  );
  assert.deepEqual(
    (await parked.list({ dueOnly: false })).map((target) => target.id),
    [2],
    "the other partition's document stays parked",
  );
  const purchasers = async (id: number) =>
    ((await db.collection("sales").findOne({ _id: id as never }))?.customers_purchased as unknown[]).length;
  assert.equal(await purchasers(1), rule.threshold, "its own partition's document corrected");
  assert.equal(await purchasers(2), 70, "the other's left to its owner");
  await fenced.sessions.close();
});
