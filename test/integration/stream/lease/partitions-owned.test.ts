// Two replicas share the partitions: /readyz's status and the partition gauges each list its
// own share, with a lag for each, and none unowned; one left alone takes them all.
import assert from "node:assert/strict";
import { test } from "node:test";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import type { Config } from "../../../../src/config/schema.js";
import { startReplicasSharing, testConfig, type TestSidecar } from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";

const ALL = [0, 1, 2, 3];
let config: Config;
let first: TestSidecar;
let second: TestSidecar;

const owned = (sidecar: TestSidecar): number[] => sidecar.runner.status().partitions;

useTestDatabase("partitions_owned", {
  setUp: async ({ mongo, db }) => {
    config = testConfig(db.databaseName, { leaseSeconds: 1, partitions: ALL.length });
    const replicas: TestSidecar[] = [];
    try {
      await startReplicasSharing(mongo, config, ["first", "second"], replicas);
    } finally {
      [first, second] = replicas as [TestSidecar, TestSidecar];
    }
  },
  tearDown: async () => {
    await Promise.all([first?.stop(), second?.stop()]);
  },
});

async function gauges(sidecar: TestSidecar): Promise<string[]> {
  const exposition = await sidecar.metrics.registry.metrics();
  return exposition.split("\n").filter((line) => /^pattern_sidecar_partition/.test(line));
}

const withoutValues = (lines: string[]): string[] =>
  lines.map((line) => line.replace(/ [\d.e-]+$/, "")).sort();

async function assertGaugesOf(sidecar: TestSidecar, partitions: number[]): Promise<void> {
  await waitUntil(async () => (await gauges(sidecar)).length === partitions.length + 2, {
    description: "a lag for each partition owned",
  });
  assert.deepEqual(withoutValues(await gauges(sidecar)), [
    ...partitions.map((partition) => `pattern_sidecar_partition_lag_seconds{partition="${partition}"}`),
    "pattern_sidecar_partitions_owned",
    "pattern_sidecar_partitions_unowned",
  ]);
  const lines = await gauges(sidecar);
  assert.ok(lines.includes(`pattern_sidecar_partitions_owned ${partitions.length}`), lines.join("\n"));
  assert.ok(lines.includes("pattern_sidecar_partitions_unowned 0"), lines.join("\n"));
}

void test("two replicas each own their share of the partitions, and none is unowned", async () => {
  const shares = [owned(first), owned(second)];
  assert.deepEqual([...shares[0]!, ...shares[1]!].sort(), ALL);
  await assertGaugesOf(first, shares[0]!);
  await assertGaugesOf(second, shares[1]!);
});

void test("a replica left alone owns every partition", async () => {
  await first.stop();
  await waitUntil(() => owned(second).length === ALL.length, {
    description: "the second replica to own every partition",
  });
  assert.deepEqual(owned(second), ALL);
  await assertGaugesOf(second, ALL);
});
