// A renewal whose reply does not come (a primary that hangs, a connection the network dropped
// in silence) must not hold the lease's renewals up for as long: its client gives up on it
// once it could no longer count (leaseClientOptions), the keeper logs the wait meanwhile, and
// the next renewal holds the lease again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { createLogger } from "../../../../src/ops/logger.js";
import { createMetrics } from "../../../../src/ops/metrics.js";
import { leaseClientOptions, WriterLease } from "../../../../src/stream/lease/lease.js";
import { LeaseKeeper } from "../../../../src/stream/lease/lease-keeper.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { logCapture, turnFailPointOff, type LogLine } from "../../../support/harness.js";

const STATE = "pattern_sidecar_state";
const APP_NAME = "lease-renewal-unanswered";
const LEASE_SECONDS = 1;

const fixture = useTestDatabase("lease_renewal");

/** Every renewal of APP_NAME's lease waits ten minutes for its reply, far past this test's timeout. */
async function leaveRenewalsUnanswered(): Promise<void> {
  await fixture.mongo.client.db("admin").command({
    configureFailPoint: "failCommand",
    mode: "alwaysOn",
    data: { failCommands: ["update"], blockConnection: true, blockTimeMS: 600_000, appName: APP_NAME },
  });
}

void test(
  "renewals the database never answers are given up one after another, each wait logged, and once it answers the lease is held again",
  { timeout: 60_000 },
  async (t) => {
    const client = await fixture.mongo.newClient({ ...leaseClientOptions(LEASE_SECONDS), appName: APP_NAME });
    const logs: LogLine[] = [];
    const logger = createLogger({ level: "debug", destination: logCapture(logs) });
    const lease = new WriterLease(client.db(fixture.db.databaseName), STATE, "holder", LEASE_SECONDS);
    const keeper = new LeaseKeeper({ lease, leaseSeconds: LEASE_SECONDS, metrics: createMetrics(), logger });
    t.after(async () => {
      keeper.stopRenewing();
      await turnFailPointOff(fixture.mongo);
      await client.close();
    });
    assert.equal(await keeper.tryAcquire(), true);

    await leaveRenewalsUnanswered();
    keeper.startRenewing();
    const notRenewed = () =>
      logs.filter((line) => line.msg === "writer lease not renewed; stopping corrections");
    // A second renewal given up: the first did not wait for its reply for ever.
    await waitUntil(() => notRenewed().length >= 2, {
      timeoutMs: 30_000,
      description: "two renewals to be given up",
    });
    assert.equal(lease.held, false);
    assert.deepEqual(
      notRenewed().map((line) => line.reason),
      notRenewed().map(() => "no renewal in time"),
    );
    const waiting = logs.filter((line) => line.msg === "writer lease renewal still waiting for the database");
    assert.ok(waiting.length > 0, "a turn of the timer logged the renewal still waiting");
    assert.ok(waiting.every((line) => typeof line.waitingMs === "number" && line.waitingMs > 0));

    await turnFailPointOff(fixture.mongo);
    await waitUntil(() => lease.held, { timeoutMs: 30_000, description: "the lease to be held again" });
    assert.equal(lease.termHeld, 1);
  },
);
