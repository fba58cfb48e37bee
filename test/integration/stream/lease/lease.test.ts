import { test } from "node:test";
import assert from "node:assert/strict";
import type { Config } from "../../../../src/config/schema.js";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  allPurchasers,
  metricTotal,
  startLeaderAndStandby,
  testConfig,
  users,
  type TestSidecar,
} from "../../../support/harness.js";

let config: Config;
let first: TestSidecar;
let second: TestSidecar;

const fixture = useTestDatabase("lease", {
  setUp: async ({ mongo, db }) => {
    config = testConfig(db.databaseName, { leaseSeconds: 1 });
    [first, second] = await startLeaderAndStandby(mongo, config, ["first", "second"]);
  },
  tearDown: async () => {
    await Promise.all([first?.stop(), second?.stop()]);
  },
});

void test("of two sidecars only the lease holder corrects documents", async () => {
  await fixture.db.collection("sales").insertOne({ _id: 1 as never, customers_purchased: users(0, 80) });
  await waitUntil(
    async () =>
      (await allPurchasers(fixture.db, 1)).length === 80 &&
      (await metricTotal(first.metrics.corrections)) > 0,
    {
      description: "the book to be corrected",
    },
  );

  assert.equal(await metricTotal(second.metrics.corrections), 0);
  assert.deepEqual([first.runner.status().leader, second.runner.status().leader], [true, false]);
});

void test("a standby sidecar takes over when the leader stops", async () => {
  await first.stop();
  await waitUntil(() => second.runner.status().state === "streaming", {
    description: "the standby to take over",
  });
  await fixture.db.collection("sales").insertOne({ _id: 2 as never, customers_purchased: users(0, 60) });
  await waitUntil(async () => (await metricTotal(second.metrics.corrections)) > 0, {
    description: "the new leader to correct",
  });
  assert.deepEqual(await allPurchasers(fixture.db, 2), users(0, 60));
});
