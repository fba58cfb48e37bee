import assert from "node:assert/strict";
import { test } from "node:test";
import { readinessOf } from "../../../src/ops/http.js";
import { RUNNER_STATES } from "../../../src/ops/metrics.js";

void test("a leader is ready only when streaming and caught up", () => {
  const ready = RUNNER_STATES.filter(
    (state) =>
      readinessOf({ state, caughtUp: true, leader: true, partitions: [0] }).ready && state !== "standby",
  );
  assert.deepEqual(ready, ["streaming"]);
});

void test("a streaming leader that has not caught up is not ready", () => {
  assert.equal(
    readinessOf({ state: "streaming", caughtUp: false, leader: true, partitions: [0] }).ready,
    false,
  );
});

void test("a replica in standby is ready: it waits to take over the lease", () => {
  assert.equal(readinessOf({ state: "standby", caughtUp: false, leader: false, partitions: [] }).ready, true);
});

void test("every state that is not ready gives a reason naming it", () => {
  for (const state of RUNNER_STATES) {
    const readiness = readinessOf({ state, caughtUp: false, leader: true, partitions: [0] });
    if (!readiness.ready)
      assert.match(readiness.reason, new RegExp(state === "streaming" ? "caught up" : state));
  }
});
