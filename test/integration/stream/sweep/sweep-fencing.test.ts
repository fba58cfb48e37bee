// `sweep` writes as a leader does, so a sidecar taking over from a paused one must be able to
// fence it: its lease lists the sessions its corrections run in, as the runner's does.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Binary } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { sweepOnce } from "../../../../src/cli/commands/sweep.js";
import { createLogger } from "../../../../src/ops/logger.js";
import { createMetrics } from "../../../../src/ops/metrics.js";
import { LEASE_ID } from "../../../../src/stream/lease/lease.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  insertBook,
  LEASE_APP_NAME,
  SIDECAR_APP_NAME,
  slowSidecarCommits,
  testConfig,
  turnFailPointOff,
} from "../../../support/harness.js";

const fixture = useTestDatabase("sweep_fencing");

void test("a sweep's lease lists the sessions its corrections commit in", async () => {
  for (let book = 1; book <= 5; book++) await insertBook(fixture.db, book, 60);
  const config = testConfig(fixture.db.databaseName);
  const client = await fixture.mongo.newClient({ appName: SIDECAR_APP_NAME });
  const leaseClient = await fixture.mongo.newClient({ appName: LEASE_APP_NAME });
  const deployment = { client, db: client.db(config.database), leaseDb: leaseClient.db(config.database) };
  await slowSidecarCommits(fixture.mongo, 500);
  try {
    const logger = createLogger({ level: "silent" });
    const sweeping = sweepOnce({ deployment, config, logger, metrics: createMetrics(), dryRun: false });
    const leases = fixture.db.collection<{ _id: string; sessions?: Binary[] }>(config.stateCollection);
    const listed = async () => ((await leases.findOne({ _id: LEASE_ID }))?.sessions ?? []).length;
    await waitUntil(async () => (await listed()) > 0, { description: "the sweep's lease to list a session" });
    await turnFailPointOff(fixture.mongo);
    const [report] = await sweeping;
    assert.equal(report?.changedByKind.moved, 5);
  } finally {
    await turnFailPointOff(fixture.mongo);
  }
});
