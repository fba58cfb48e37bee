// A backlog of buckets that the corrections' memory budget (correctionMemoryMiB) cannot hold
// all at once: a shared transaction whose batch the whole budget could not hold is refused
// before it reads and its corrections are made one by one, so no transaction holds more than
// the budget, and every bucket is still split with every trade once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BSON, type Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { uniqueDatabaseName, useTestDatabase } from "../../../support/mongo.js";
import {
  correctionsLogged,
  startSidecar,
  testConfig,
  waitForCaughtUp,
  type TestSidecar,
} from "../../../support/harness.js";

const BUCKETS = 12;
const THRESHOLD = 10;
const MIB = 1024 * 1024;

const sidecars: TestSidecar[] = [];
const fixture = useTestDatabase("batched_memory_budget", {
  tearDown: async () => {
    await Promise.all(sidecars.map((sidecar) => sidecar.stop()));
  },
});

const at = (second: number) => new Date(Date.UTC(2024, 0, 1) + second * 1000);
// About 27 KB a trade: a bucket of eleven is near 300 KB, so three fit in 1 MiB and four do not.
const trade = (second: number) => ({ type: "buy", quantity: 1, date: at(second), note: "n".repeat(27_000) });
const stamp = (second: number) => String(at(second).getTime() / 1000);

void test("a backlog of buckets larger than the memory budget is split in transactions within it", async () => {
  const db = fixture.mongo.client.db(uniqueDatabaseName("batched_budget"));
  const config = testConfig(db.databaseName, { concurrency: 2, correctionMemoryMiB: 1 });
  const first = await startSidecar(fixture.mongo, config, { waitForStreaming: false });
  sidecars.push(first);
  // Swept, not only caught up: a sweep left pending would race the next sidecar's stream.
  await waitForCaughtUp(first.runner);
  await first.stop();

  const trades = db.collection<{ _id: string; customerId: string; history: Document[]; count: number }>(
    "trades",
  );
  const full = Array.from({ length: THRESHOLD }, (_, i) => trade(i));
  const buckets = Array.from({ length: BUCKETS }, (_, i) => ({
    _id: `c${i}_${stamp(0)}`,
    customerId: `c${i}`,
    history: full,
    count: THRESHOLD,
  }));
  await trades.insertMany(buckets);
  for (const { _id } of buckets)
    await trades.updateOne({ _id }, { $push: { history: trade(100) }, $inc: { count: 1 } });
  const pushed = await trades.findOne({ _id: buckets[0]!._id });
  const bucketBytes = BSON.calculateObjectSize(pushed!);
  assert.ok(3 * bucketBytes <= MIB && 4 * bucketBytes > MIB, `a bucket of ${bucketBytes} bytes`);

  const sidecar = await startSidecar(fixture.mongo, config, { waitForStreaming: false });
  sidecars.push(sidecar);
  await waitUntil(
    async () => (await trades.countDocuments({ [`history.${THRESHOLD}`]: { $exists: true } })) === 0,
    { timeoutMs: 20_000, description: "every bucket split" },
  );

  const batches = correctionsLogged(sidecar.logs).map((correction) => correction.batch);
  // The backlog arrives together: its batch is refused whole, then corrected one by one.
  const refused = sidecar.logs.filter(
    (line) =>
      line.msg === "shared correction failed; correcting one by one" &&
      /more than the memory budget holds/.test(
        String((line.err as { message?: unknown } | undefined)?.message),
      ),
  );
  assert.ok(refused.length > 0, "no batch was refused for the budget");
  assert.ok(
    batches.every((size) => size <= 3),
    `a transaction held more than the budget: ${batches.join()}`,
  );
  for (const { customerId } of buckets) {
    const split = await trades.find({ customerId }).sort({ _id: 1 }).toArray();
    assert.deepEqual(
      split.map((bucket) => [bucket.count, bucket.history.length]),
      [
        [THRESHOLD, THRESHOLD],
        [1, 1],
      ],
      customerId,
    );
  }
});
