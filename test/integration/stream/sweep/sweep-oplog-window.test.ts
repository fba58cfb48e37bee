// A first-start sweep that takes longer than the oplog window, while applications keep
// writing, still ends in a stream: the stream from the time noted before the sweep is read
// beside it, so its start never falls off the oplog.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Db } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../../../support/mongo.js";
import {
  isBookCorrected,
  metricTotal,
  startSidecar,
  testConfig,
  users,
  type TestSidecar,
} from "../../../support/harness.js";

/** Change records the embedded server keeps: far fewer than the writer adds during the sweep. */
const OPLOG_WINDOW = 500;
const SMALL_BOOKS = 4000;
const OVERFILLED_BOOKS = 40;

let mongo: TestMongo;
let db: Db;

before(async () => {
  mongo = await startTestMongo({ changeHistoryLimit: OPLOG_WINDOW });
  db = mongo.client.db(uniqueDatabaseName("sweep_oplog_window"));
  const small = Array.from({ length: SMALL_BOOKS }, (_, i) => ({ _id: i, customers_purchased: users(0, 1) }));
  const overfilled = Array.from({ length: OVERFILLED_BOOKS }, (_, i) => ({
    _id: SMALL_BOOKS + i,
    customers_purchased: users(0, 60),
  }));
  await db.collection<{ _id: number }>("sales").insertMany([...small, ...overfilled]);
});

after(async () => {
  await db?.dropDatabase();
  await mongo?.close();
});

/** An application writing to a collection no rule watches, until told to stop. */
function keepWriting(): { stop: () => Promise<number> } {
  let writing = true;
  let written = 0;
  const done = (async () => {
    while (writing) {
      await db.collection("noise").insertOne({ at: new Date() });
      written++;
    }
  })();
  return {
    stop: async () => {
      writing = false;
      await done;
      return written;
    },
  };
}

void test("a sweep longer than the oplog window ends in a stream that is caught up", async () => {
  const writer = keepWriting();
  let sidecar: TestSidecar | undefined;
  try {
    sidecar = await startSidecar(mongo, testConfig(db.databaseName), {
      waitForStreaming: false,
      sweepPageSize: 10,
    });
    const runner = sidecar.runner;
    await waitUntil(() => runner.status().state === "streaming" && runner.status().caughtUp, {
      timeoutMs: 90_000,
      description: "the sidecar to stream and catch up",
    });
    const written = await writer.stop();
    assert.ok(written > OPLOG_WINDOW, `the writer outran the oplog window (${written} writes)`);
    for (let i = 0; i < OVERFILLED_BOOKS; i++) assert.ok(await isBookCorrected(db, SMALL_BOOKS + i, 60));
    assert.equal(await metricTotal(sidecar.metrics.errors, { kind: "history_lost" }), 0);
  } finally {
    await writer.stop();
    await sidecar?.stop();
  }
});
