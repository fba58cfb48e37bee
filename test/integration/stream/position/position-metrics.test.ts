// stream_lag_seconds and resume_token_age_seconds are read when scraped, from the replica
// that streams: one with no partition owns no position, so it reports none rather than a
// stale one. One partition between two replicas: one streams it, the other stands by.
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import assert from "node:assert/strict";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  startSidecar,
  testConfig,
  users,
  waitForCaughtUp,
  type TestSidecar,
} from "../../../support/harness.js";

let streamer: TestSidecar;
let standby: TestSidecar;
/** Both, stopped even when setUp fails half-way. */
const replicas: TestSidecar[] = [];

const fixture = useTestDatabase("position_metrics", {
  setUp: async ({ mongo, db }) => {
    const config = testConfig(db.databaseName, { partitions: 1 });
    replicas.push(await startSidecar(mongo, config, { holderId: "first" }));
    replicas.push(await startSidecar(mongo, config, { holderId: "second", waitForStreaming: false }));
    const streaming = () => replicas.find((replica) => replica.runner.status().partitions.length === 1);
    await waitUntil(
      () =>
        streaming()?.runner.status().leader === false &&
        replicas.some((replica) => replica.runner.status().state === "standby"),
      { description: "one replica streaming the partition, the other standing by" },
    );
    streamer = streaming()!;
    standby = replicas.find((replica) => replica !== streamer)!;
  },
  tearDown: async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
  },
});

async function readings(metric: TestSidecar["metrics"]["streamLag"]): Promise<number[]> {
  return (await metric.get()).values.map((sample) => sample.value);
}

void test("a caught-up streamer reports no stream lag and the age of the token it just persisted", async () => {
  await fixture.db.collection("sales").insertOne({ _id: 1 as never, customers_purchased: users(0, 60) });
  await waitUntil(async () => (await readings(streamer.metrics.resumeTokenAge)).length === 1, {
    description: "a resume token to be persisted",
  });
  await waitForCaughtUp(streamer.runner);

  assert.deepEqual(await readings(streamer.metrics.streamLag), [0]);
  const [age] = await readings(streamer.metrics.resumeTokenAge);
  assert.ok(age !== undefined && age >= 0 && age < 60, `a fresh token, ${age} s old`);
});

void test("the resume token age keeps growing between scrapes without a persist", async () => {
  // The idle streamer persists the stream's post-batch token once a minute, so the age falls
  // back now and then: two scrapes close together with no persist between them show it
  // growing. Comparing with one first scrape, as this test once did, failed when that scrape
  // came just before a persist.
  await waitUntil(
    async () => {
      const [before] = await readings(streamer.metrics.resumeTokenAge);
      await delay(50);
      const [after] = await readings(streamer.metrics.resumeTokenAge);
      return before !== undefined && after !== undefined && after > before;
    },
    { description: "the age to grow between two scrapes" },
  );
});

void test("a replica with no partition reports neither stream lag nor resume token age", async () => {
  assert.deepEqual(await readings(standby.metrics.streamLag), []);
  assert.deepEqual(await readings(standby.metrics.resumeTokenAge), []);
});
