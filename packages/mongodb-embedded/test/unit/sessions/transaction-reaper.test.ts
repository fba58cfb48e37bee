import assert from "node:assert/strict";
import { it } from "node:test";
import { reaperPeriodMs } from "../../../src/sessions/transaction-reaper.js";

// mongod's period: src/mongo/db/periodic_runner_job_abort_expired_transactions.cpp
void it("looks for expired transactions every half the lifetime limit, between 1 s and 60 s", () => {
  assert.deepEqual(
    [1, 2, 60, 90, 120, 600].map(reaperPeriodMs),
    [1_000, 1_000, 30_000, 45_000, 60_000, 60_000],
  );
});
