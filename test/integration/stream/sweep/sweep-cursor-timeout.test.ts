// A sweep slower than the server's idle-cursor timeout still finishes in one pass: it reads
// its candidates in pages answered in one reply each, so no cursor of its stays open long
// enough to be killed (the 10-minute cursorTimeoutMillis, shortened here).
import { test } from "node:test";
import assert from "node:assert/strict";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  insertBook,
  isBookCorrected,
  metricTotal,
  slowSidecarCommits,
  startSidecar,
  testConfig,
  turnFailPointOff,
  waitForCaughtUp,
} from "../../../support/harness.js";

const fixture = useTestDatabase("sweep-cursor-timeout");
// More than a cursor's first batch (101 documents), so that a single cursor would need a getMore.
const BOOKS = 150;
const RULE = "sales.customers_purchased";

async function setCursorTimeout(milliseconds: number): Promise<number> {
  const admin = fixture.mongo.client.db("admin");
  const { cursorTimeoutMillis } = await admin.command({ getParameter: 1, cursorTimeoutMillis: 1 });
  await admin.command({ setParameter: 1, cursorTimeoutMillis: milliseconds });
  return Number(cursorTimeoutMillis);
}

void test("a sweep that takes longer than the idle-cursor timeout examines every candidate once and corrects them all", async () => {
  const { mongo, db } = fixture;
  for (let book = 1; book <= BOOKS; book += 1) await insertBook(db, book, 60);
  const previousTimeout = await setCursorTimeout(1000);
  // 150 commits of 50 ms: the sweep lasts several times the timeout (mongod looks for idle
  // cursors every 4 s, the embedded server every second).
  await slowSidecarCommits(mongo, 50);
  try {
    const sidecar = await startSidecar(mongo, testConfig(db.databaseName), { waitForStreaming: false });
    try {
      await waitForCaughtUp(sidecar.runner, 60_000);
      assert.equal(await metricTotal(sidecar.metrics.sweepDocumentsScanned, { rule: RULE }), BOOKS);
      assert.equal(await metricTotal(sidecar.metrics.errors, { kind: "resumable" }), 0);
      for (let book = 1; book <= BOOKS; book += 1)
        assert.ok(await isBookCorrected(db, book, 60), `book ${book}`);
    } finally {
      await sidecar.stop();
    }
  } finally {
    await turnFailPointOff(mongo);
    await setCursorTimeout(previousTimeout);
  }
});
