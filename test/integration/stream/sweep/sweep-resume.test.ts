// A sweep stopped halfway leaves a checkpoint per partition (src/stream/sweep/partition-sweeps.ts): the next
// sweep examines only what lies after it, and the stream that follows opens at the time
// noted before the first sweep began, so a write made meanwhile before the checkpoint is seen.
import { test } from "node:test";
import assert from "node:assert/strict";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import type { SweepCheckpoint } from "../../../../src/stream/sweep/sweep-checkpoints.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  insertBook,
  isBookCorrected,
  metricTotal,
  slowSidecarCommits,
  startSidecar,
  testConfig,
  turnFailPointOff,
  users,
} from "../../../support/harness.js";

const fixture = useTestDatabase("sweep-resume");
const BOOKS = 40;
const RULE = "sales.customers_purchased";

void test("a sweep stopped halfway continues after its checkpoint, and a book broken again before it meanwhile is corrected by the stream", async () => {
  const { mongo, db } = fixture;
  const config = testConfig(db.databaseName);
  for (let book = 1; book <= BOOKS; book += 1) await insertBook(db, book, 60);
  // Slow commits, so that the sweep is still going when it is stopped.
  await slowSidecarCommits(mongo, 50);
  const first = await startSidecar(mongo, config, { waitForStreaming: false, sweepPageSize: 10 });
  await waitUntil(async () => (await metricTotal(first.metrics.corrections, { rule: RULE })) >= 15, {
    timeoutMs: 20_000,
    description: "15 corrections",
  });
  await first.stop();
  await turnFailPointOff(mongo);

  const checkpoint = await db
    .collection<SweepCheckpoint>(config.stateCollection)
    .findOne({ _id: `sweep:partition.0:${RULE}:source` });
  assert.ok(
    checkpoint,
    "the stopped sweep left a checkpoint, for each partition (a replica alone sweeps all)",
  );
  const after = checkpoint.after as number;
  assert.ok(after >= 10 && after < BOOKS, `checkpoint after ${after}`);
  await db
    .collection<{ _id: number; customers_purchased: string[] }>("sales")
    .updateOne({ _id: 1 }, { $push: { customers_purchased: { $each: users(60, 70) } } });
  const brokenAfter = await db.collection("sales").countDocuments({
    _id: { $gt: after } as never,
    $expr: { $gt: [{ $size: "$customers_purchased" }, 50] },
  });

  const second = await startSidecar(mongo, config, { sweepPageSize: 10 });
  try {
    assert.equal(await metricTotal(second.metrics.sweepDocumentsScanned, { rule: RULE }), brokenAfter);
    assert.ok(brokenAfter < BOOKS - after + 1);
    assert.ok(
      second.logs.some((line) => line.msg === "sweeping rule" && line.rule === RULE && line.resumed === true),
    );
    await waitUntil(() => isBookCorrected(db, 1, 70), { timeoutMs: 10_000, description: "book 1 corrected" });
    for (let book = 2; book <= BOOKS; book += 1)
      assert.ok(await isBookCorrected(db, book, 60), `book ${book}`);
    const left = await db
      .collection(config.stateCollection)
      .countDocuments({ _id: { $regex: "^sweep:" } as never });
    assert.equal(left, 0, "a completed sweep clears its checkpoints");
  } finally {
    await second.stop();
  }
});
