// A partition's sweep continued later skips the rules it completed (partition-sweeps.ts): each
// completed rule leaves a mark where its checkpoints were. docs/semantics.md, "Sweeps by partition".
import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger } from "../../../../src/ops/logger.js";
import { noteSweepStart, PartitionSweeps } from "../../../../src/stream/sweep/partition-sweeps.js";
import { sweepPartitions } from "../../../../src/stream/sweep/shared-sweep.js";
import { insertBook, logCapture, testConfig, type LogLine } from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";

const fixture = useTestDatabase("partition_sweeps");
const PARTITIONS = 4;
const ALL = [0, 1, 2, 3];

/** A dry run over every partition (plans read, nothing written), logging into `logs`. */
function dryRun(logs: LogLine[], shouldStop: () => boolean) {
  const { db } = fixture;
  const config = testConfig(db.databaseName, { partitions: PARTITIONS });
  return sweepPartitions({
    sweeps: new PartitionSweeps(db, config.stateCollection),
    partitions: ALL,
    partitionCount: PARTITIONS,
    db,
    rules: config.rules,
    stateCollection: config.stateCollection,
    logger: createLogger({ level: "debug", destination: logCapture(logs) }),
    shouldStop,
  });
}

const rulesSwept = (logs: readonly LogLine[]) =>
  logs.filter((line) => line.msg === "sweeping rule").map((line) => line.rule);

void test("a partition's sweep continued after a stop skips the rules it completed", async () => {
  const { db } = fixture;
  const config = testConfig(db.databaseName, { partitions: PARTITIONS });
  const [first, second] = config.rules.map((rule) => rule.name);
  for (let book = 1; book <= 5; book += 1) await insertBook(db, book, 60);
  await new PartitionSweeps(db, config.stateCollection).begin(ALL, await noteSweepStart(db));

  const stopped: LogLine[] = [];
  // Stops as the second rule's sweep begins, the first completed.
  const completed = await dryRun(stopped, () => rulesSwept(stopped).includes(second));
  assert.equal(completed, false);
  assert.deepEqual(rulesSwept(stopped), [first, second]);

  const continued: LogLine[] = [];
  assert.equal(await dryRun(continued, () => false), true);
  assert.equal(rulesSwept(continued).includes(first), false, `${first} is not swept again`);
  assert.equal(rulesSwept(continued)[0], second);
  const left = await db
    .collection(config.stateCollection)
    .countDocuments({ _id: { $regex: "^sweep:partition\\." } as never });
  assert.equal(left, 0, "the finished partitions' marks are gone");
});
