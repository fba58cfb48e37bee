// Replicas started together may each find no other live at first: one takes the writer lease
// and waits for the partitions the others took. Once a round shows others live (and no
// unpartitioned work), it stops waiting and shares, having corrected nothing.
import assert from "node:assert/strict";
import { test } from "node:test";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { startSidecar, testConfig, type TestSidecar } from "../../../support/harness.js";
import { uniqueDatabaseName, useTestDatabase } from "../../../support/mongo.js";

const sidecars: TestSidecar[] = [];
const fixture = useTestDatabase("lead_steps_back", {
  tearDown: async () => {
    await Promise.all(sidecars.map((sidecar) => sidecar.stop()));
  },
});

void test("a lead still gathering partitions shares them once it sees another replica live", async () => {
  const db = fixture.mongo.client.db(uniqueDatabaseName("lead_steps_back"));
  const config = testConfig(db.databaseName, { leaseSeconds: 1, partitions: 4 });
  // A position stored: not a first start, which would need the writer lease anyway.
  const first = await startSidecar(fixture.mongo, config);
  await first.stop();

  // Partition 0 held by a replica whose heartbeat the newcomer's first round does not see.
  const state = db.collection<{ _id: string; holder: string; term?: number; expiresAt: Date }>(
    config.stateCollection,
  );
  const inAnHour = new Date(Date.now() + 3_600_000);
  await state.replaceOne(
    { _id: "lease.partition.0" },
    { holder: "other", term: 1, expiresAt: inAnHour },
    { upsert: true },
  );
  const sidecar = await startSidecar(fixture.mongo, config, { waitForStreaming: false });
  sidecars.push(sidecar);
  await waitUntil(
    () =>
      sidecar.logs.some(
        (line) => line.msg === "waiting for the other replicas to hand their partitions over",
      ),
    { description: "the lone replica leading, waiting for partition 0" },
  );

  await state.insertOne({ _id: "member.other", holder: "other", expiresAt: inAnHour });
  await waitUntil(
    () => {
      const status = sidecar.runner.status();
      return status.state === "streaming" && !status.leader && status.partitions.length === 2;
    },
    { timeoutMs: 10_000, description: "its share of the partitions streamed, the writer lease released" },
  );
  assert.ok(!sidecar.runner.status().partitions.includes(0), "partition 0 stays the other's");
  assert.ok(
    !sidecar.logs.some((line) => line.msg === "corrected document" || line.msg === "corrected documents"),
    "nothing was corrected under the lead",
  );
});
