// A requested sweep of a rule a sidecar performing it does not enforce (its configuration differs
// from the requester's) ends failed, saying why, rather than waiting for ever.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SweepRequests } from "../../../../src/stream/sweep/sweep-requests.js";
import { metricTotal, startSidecar, testConfig } from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { requestInState } from "../../../support/sweep-requests.js";

const fixture = useTestDatabase("requested_sweep_refused");

void test("a request naming a rule the sidecar does not enforce fails with the rules it does enforce", async () => {
  const { mongo, db } = fixture;
  const config = testConfig(db.databaseName);
  const requests = new SweepRequests(db, config.stateCollection);
  const id = await requests.create(["trades-renamed"], "test");
  const sidecar = await startSidecar(mongo, config);
  try {
    const ended = await requestInState(requests, id, "failed");
    assert.match(
      ended.error ?? "",
      /^rule trades-renamed is not enforced by a sidecar performing it \(it enforces .*trades\.history/,
    );
    assert.equal(await metricTotal(sidecar.metrics.sweepRequests, { outcome: "failed" }), 1);
  } finally {
    await sidecar.stop();
  }
});
