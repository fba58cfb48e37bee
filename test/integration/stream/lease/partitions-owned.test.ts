// Until replicas share partitions, the leader owns every one and a standby none: /readyz's
// status and the partition gauges say so, and move with the lease.
import assert from "node:assert/strict";
import { test } from "node:test";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import type { Config } from "../../../../src/config/schema.js";
import { startLeaderAndStandby, testConfig, type TestSidecar } from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";

let config: Config;
let leader: TestSidecar;
let standby: TestSidecar;

useTestDatabase("partitions_owned", {
  setUp: async ({ mongo, db }) => {
    config = testConfig(db.databaseName, { leaseSeconds: 1, partitions: 4 });
    [leader, standby] = await startLeaderAndStandby(mongo, config, ["leader", "standby"]);
  },
  tearDown: async () => {
    await Promise.all([leader?.stop(), standby?.stop()]);
  },
});

async function gauges(sidecar: TestSidecar): Promise<string[]> {
  const exposition = await sidecar.metrics.registry.metrics();
  return exposition.split("\n").filter((line) => /^pattern_sidecar_partition/.test(line));
}

void test("the leader owns every partition and a standby none, and none is unowned", async () => {
  assert.deepEqual(leader.runner.status().partitions, [0, 1, 2, 3]);
  assert.deepEqual(standby.runner.status().partitions, []);
  await waitUntil(async () => (await gauges(leader)).length === 6, {
    description: "a lag for each partition",
  });
  assert.deepEqual((await gauges(leader)).map((line) => line.replace(/ [\d.e-]+$/, "")).sort(), [
    'pattern_sidecar_partition_lag_seconds{partition="0"}',
    'pattern_sidecar_partition_lag_seconds{partition="1"}',
    'pattern_sidecar_partition_lag_seconds{partition="2"}',
    'pattern_sidecar_partition_lag_seconds{partition="3"}',
    "pattern_sidecar_partitions_owned",
    "pattern_sidecar_partitions_unowned",
  ]);
  assert.ok((await gauges(leader)).includes("pattern_sidecar_partitions_owned 4"));
  assert.deepEqual(await gauges(standby), [
    "pattern_sidecar_partitions_owned 0",
    "pattern_sidecar_partitions_unowned 0",
  ]);
});

void test("a standby that takes the lease over owns every partition", async () => {
  await leader.stop();
  await waitUntil(() => standby.runner.status().state === "streaming", {
    description: "the standby to take over",
  });
  assert.deepEqual(standby.runner.status().partitions, [0, 1, 2, 3]);
  assert.ok((await gauges(standby)).includes("pattern_sidecar_partitions_owned 4"));
  assert.ok((await gauges(standby)).includes("pattern_sidecar_partitions_unowned 0"));
});
