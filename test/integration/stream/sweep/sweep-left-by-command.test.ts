// A `sweep` command that died halfway leaves its checkpoint (`sweep:pending`) while replicas
// stream by partition: one of them sees it, takes the writer lease, turns it into a sweep of
// each partition, and the replicas share the partitions again. docs/semantics.md, "Partitions".
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import type { Config } from "../../../../src/config/schema.js";
import { currentClusterTime } from "../../../../src/stream/position/cluster-time.js";
import { startReplicasSharing, testConfig, type TestSidecar } from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";

let config: Config;
const sidecars: TestSidecar[] = [];
const fixture = useTestDatabase("sweep_left_by_command", {
  setUp: ({ db }) => {
    config = testConfig(db.databaseName, { leaseSeconds: 1, partitions: 4 });
  },
  tearDown: async () => {
    await Promise.all(sidecars.map((sidecar) => sidecar.stop()));
  },
});

void test("a sweep of every key left halfway is taken up by the replicas streaming by partition", async () => {
  await startReplicasSharing(fixture.mongo, config, ["a", "b"], sidecars);
  // Past the restart each stream makes once a round lists the other's sessions: the loop
  // between streams would see the checkpoint too, and only the check during one is tested.
  await delay(3_000);
  const state = fixture.db.collection<{ _id: string }>(config.stateCollection);
  const left = {
    _id: "sweep:pending",
    startedAt: new Date(),
    clusterTime: await currentClusterTime(fixture.db),
  };
  await state.insertOne(left);

  await waitUntil(async () => (await state.findOne({ _id: left._id })) === null, {
    timeoutMs: 20_000,
    description: "the sweep left halfway taken up",
  });
  await waitUntil(
    () =>
      sidecars.every(({ runner }) => {
        const status = runner.status();
        return status.state === "streaming" && !status.leader && status.partitions.length === 2;
      }),
    { timeoutMs: 20_000, description: "both replicas streaming their share again" },
  );
  assert.ok(
    sidecars.some(({ logs }) =>
      logs.some((line) => line.msg === "runner state" && line.state === "sweeping"),
    ),
    "a replica swept",
  );
});
