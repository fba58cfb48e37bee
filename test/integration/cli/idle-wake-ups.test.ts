// An idle sidecar lets its event loop sleep. prom-client sampled the loop's delay every 10 ms
// by default, waking even an idle replica 100 times a second, each wake-up CPU that a small VM
// charges for (docs/benchmarks.md, `replicas`); the driver's pools check their size every
// 100 ms, and the sidecar's own rounds come a few times a second.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { waitUntil } from "../../../src/cli/wait-until.js";
import { useCliReplicas } from "../../support/cli-replicas.js";
import { processWakeUps } from "../../support/wake-ups.js";

const replicas = useCliReplicas("idle_wake_ups");

/** Its wake-ups so far; /proc must tell. */
function wakeUps(pid: number): number {
  const count = processWakeUps(pid);
  if (count === undefined) throw new Error(`/proc/${pid}/status gives no voluntary_ctxt_switches`);
  return count;
}

const IDLE_SECONDS = 3;
/** With the 10 ms sampling, over 110 a second; without it, about 40 here. */
const MOST_PER_SECOND = 80;

void test(
  "an idle sidecar's event loop wakes fewer than 80 times a second",
  { skip: process.platform !== "linux" && "counts wake-ups in /proc (Linux)" },
  async (t) => {
    const child = await replicas.start();
    await waitUntil(
      async () => {
        const readiness = await replicas.readiness(child);
        return readiness?.state === "streaming" && readiness.caughtUp === true;
      },
      { timeoutMs: 60_000, description: "the sidecar to stream and catch up" },
    );
    // Nothing asks it anything meanwhile: a /readyz would wake it too.
    const before = wakeUps(child.pid!);
    await sleep(IDLE_SECONDS * 1000);
    const perSecond = (wakeUps(child.pid!) - before) / IDLE_SECONDS;
    t.diagnostic(`${perSecond.toFixed(1)} wake-ups a second`);
    assert.ok(perSecond < MOST_PER_SECOND, `${perSecond.toFixed(1)} wake-ups a second`);
  },
);
