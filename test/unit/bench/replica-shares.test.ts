// The replicas bench's arithmetic (bench/replica-shares.ts): shares, spreads, CPU per
// correction less idling, the server's line over N and the model's projected drain.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  activeCpuPerCorrectionMs,
  fitLine,
  projectedDrainMs,
  replicaShares,
} from "../../../bench/replica-shares.js";

const replicas = [
  { eventsReceived: 600, corrections: 500, cpuMs: 300 },
  { eventsReceived: 400, corrections: 250, cpuMs: 200 },
];

void test("shares are of the whole stream, the spread is max over min, CPU is summed over the replicas", () => {
  assert.deepEqual(replicaShares(replicas, 1000), {
    eventShares: [0.6, 0.4],
    correctionsMaxOverMin: 2,
    cpuPerCorrectionMs: 500 / 750,
    cpuPerEventMs: 500 / 1000,
  });
});

void test("a replica whose CPU cannot be read leaves the CPU figures out", () => {
  const shares = replicaShares([...replicas, { eventsReceived: 0, corrections: 0, cpuMs: undefined }], 1000);
  assert.equal(shares.cpuPerCorrectionMs, undefined);
  assert.equal(shares.correctionsMaxOverMin, Infinity);
});

void test("CPU per correction less idling takes each replica's idle share over the phase away", () => {
  // 500 ms of CPU over 1 s, idling at 10% and 20% of a core (300 ms): 200 ms for 750 corrections.
  const active = activeCpuPerCorrectionMs(replicas, [0.1, 0.2], 1000);
  assert.ok(Math.abs(active! - 200 / 750) < 1e-12, `${active}`);
  assert.equal(activeCpuPerCorrectionMs(replicas, [0.1, undefined], 1000), undefined);
});

void test("the least-squares line through the server's CPU over N", () => {
  assert.deepEqual(
    fitLine([
      [1, 5],
      [2, 7],
      [4, 11],
    ]),
    { intercept: 3, slope: 2 },
  );
  assert.deepEqual(
    fitLine([
      [2, 4],
      [2, 6],
    ]),
    { intercept: 5, slope: 0 },
  );
});

void test("the projected drain is the slower of a replica's share and the server's on the other cores", () => {
  const model = {
    corrections: 1000,
    replicaCpuPerCorrectionMs: 0.4,
    replicaIdleShare: 0,
    serverFixedMs: 600,
    serverPerStreamMs: 100,
  };
  // One replica: 400 ms of its own against (600 + 100) / 15 ms of the server's.
  assert.equal(projectedDrainMs(model, 16, 1), 400);
  // Eight: 50 ms each against (600 + 800) / 8 = 175 ms of the server's.
  assert.equal(projectedDrainMs(model, 16, 8), 175);
  assert.equal(projectedDrainMs({ ...model, replicaIdleShare: 0.2 }, 16, 1), 500);
  assert.throws(() => projectedDrainMs(model, 4, 4), /no core/);
});
