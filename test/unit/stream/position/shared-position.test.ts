// The tender of the shared position: when it reads every partition's position, and when it writes.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Document } from "mongodb";
import { createLogger } from "../../../../src/ops/logger.js";
import { createMetrics } from "../../../../src/ops/metrics.js";
import type { PassedByAll } from "../../../../src/stream/position/partition-positions.js";
import { SharedPositionTender } from "../../../../src/stream/position/shared-position.js";
import type { StoredPosition } from "../../../../src/stream/position/token-store.js";

const token = (data: string): Document => ({ _data: data });

/**
 * A tender over positions held in memory: `passed` is what every partition passed, `shared`
 * the stored shared position, `own` this replica's; it counts its reads and writes.
 */
function tenderOver(state: { passed?: string; shared?: string; own?: string; failReads?: boolean }) {
  const counts = { reads: 0, writes: 0, prunes: 0 };
  const tender = new SharedPositionTender({
    tokens: {
      load: () => {
        counts.reads++;
        if (state.failReads) return Promise.reject(new Error("not primary"));
        const stored =
          state.shared === undefined ? null : ({ resumeToken: token(state.shared) } as StoredPosition);
        return Promise.resolve(stored);
      },
      advanceTo: (resumeToken) => {
        counts.writes++;
        state.shared = String(resumeToken._data);
        return Promise.resolve(true);
      },
    },
    positions: {
      passedByAll: () => {
        const passed: PassedByAll | undefined =
          state.passed === undefined
            ? undefined
            : { resumeToken: token(state.passed), clusterTimeSeconds: 1 };
        return Promise.resolve(passed);
      },
      behindOwn: (passed) =>
        state.own !== undefined && (passed === undefined || String(passed.resumeToken._data) < state.own),
    },
    pruning: {
      positionPersisted: () => {
        counts.prunes++;
        return Promise.resolve();
      },
    },
    partitions: 4,
    logger: createLogger({ level: "silent" }),
    metrics: createMetrics(),
  });
  return { tender, counts };
}

/** Which of `rounds` lease rounds read the positions (1-based). */
async function roundsThatRead(tender: SharedPositionTender, counts: { reads: number }, rounds: number) {
  const read: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const before = counts.reads;
    await tender.roundCame();
    if (counts.reads > before) read.push(round);
  }
  return read;
}

void test("a stored position moves the shared one up to what every partition passed, pruning behind it", async () => {
  const state = { passed: "0005", shared: "0003", own: "0005" };
  const { tender, counts } = tenderOver(state);
  await tender.positionStored();
  assert.equal(state.shared, "0005");
  assert.deepEqual(counts, { reads: 1, writes: 1, prunes: 1 });
});

void test("where every partition passed no more than the shared position, nothing is written", async () => {
  const { tender, counts } = tenderOver({ passed: "0003", shared: "0003", own: "0003" });
  await tender.positionStored();
  assert.deepEqual(counts, { reads: 1, writes: 0, prunes: 0 });
});

void test("while the shared position is short of its own and nothing moves, retries wait twice as many rounds, up to 8", async () => {
  // The other partitions' positions stay at 0003 while this replica's is at 0009.
  const { tender, counts } = tenderOver({ passed: "0003", shared: "0003", own: "0009" });
  await tender.positionStored();
  // The round after the store does not count; then waits of 1, 2, 4, 8 and 8 rounds.
  assert.deepEqual(await roundsThatRead(tender, counts, 32), [2, 4, 8, 16, 24, 32]);
});

void test("a retry that finds the partitions moved on waits one round again", async () => {
  const state = { passed: "0003", shared: "0003", own: "0009" };
  const { tender, counts } = tenderOver(state);
  await tender.positionStored();
  assert.deepEqual(await roundsThatRead(tender, counts, 5), [2, 4]);
  state.passed = "0006";
  // The wait of 4 ends at the third round here: moved, so the next waits one round, then two.
  assert.deepEqual(await roundsThatRead(tender, counts, 6), [3, 4, 6]);
  assert.equal(state.shared, "0006");
});

void test("a shared position level with its own is not retried by rounds", async () => {
  const { tender, counts } = tenderOver({ passed: "0009", shared: "0003", own: "0009" });
  await tender.positionStored();
  assert.deepEqual(await roundsThatRead(tender, counts, 10), []);
});

void test("a failed try is retried at the next round, however long the wait before it", async () => {
  const state = { passed: "0003", shared: "0003", own: "0009", failReads: false };
  const { tender, counts } = tenderOver(state);
  await tender.positionStored();
  assert.deepEqual(await roundsThatRead(tender, counts, 5), [2, 4]);
  state.failReads = true;
  assert.deepEqual(await roundsThatRead(tender, counts, 8), [3, 4, 5, 6, 7, 8]);
});
