import { test } from "node:test";
import assert from "node:assert/strict";
import { streamName } from "../../../../src/stream/position/token-store.js";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { uniqueDatabaseName, useTestDatabase } from "../../../support/mongo.js";
import {
  allPurchasers,
  failSidecarCommands,
  insertBook,
  isBookCorrected,
  metricTotal,
  startSidecar,
  statesLogged,
  testConfig,
  turnFailPointOff,
  users,
} from "../../../support/harness.js";
import type { Config } from "../../../../src/config/schema.js";

let config: Config;
const fixture = useTestDatabase("resume", {
  setUp: ({ db }) => {
    config = testConfig(db.databaseName);
  },
});

async function overfill(bookId: number): Promise<void> {
  await insertBook(fixture.db, bookId, 70);
}

async function waitForBookFixed(bookId: number): Promise<void> {
  await waitUntil(() => isBookCorrected(fixture.db, bookId, 70), {
    description: `book ${bookId} to be corrected`,
  });
}

void test("a graceful stop persists the resume token", async () => {
  const sidecar = await startSidecar(fixture.mongo, config);
  await overfill(1);
  await waitForBookFixed(1);
  await sidecar.stop();

  const position = await fixture.db
    .collection(config.stateCollection)
    .findOne({ _id: streamName(config.database) as never });
  assert.ok(position?.resumeToken, "a resume token is stored");
  assert.equal(sidecar.runner.status().state, "stopped");
});

void test("a restarted sidecar resumes from its token and re-processes nothing", async () => {
  await overfill(2);
  const sidecar = await startSidecar(fixture.mongo, config);
  await waitForBookFixed(2);
  await sidecar.stop();

  assert.deepEqual(
    statesLogged(sidecar.logs),
    ["resuming", "streaming", "stopped"],
    "resumed without a sweep",
  );
  // Only book 2's insert is new; the sidecar's own writes are filtered out on the server.
  assert.equal(await metricTotal(sidecar.metrics.eventsReceived), 1, "no event before the token came again");
  assert.equal(await metricTotal(sidecar.metrics.eventsActedOn), 1, "book 2's insert led to its correction");
  assert.deepEqual(await allPurchasers(fixture.db, 1), users(0, 70), "book 1 untouched and complete");
});

void test("a sidecar whose history is lost sweeps and still ends correct", async () => {
  await overfill(3);
  await failSidecarCommands(fixture.mongo, { commands: ["aggregate"], errorCode: 286, mode: { times: 1 } });
  try {
    const sidecar = await startSidecar(fixture.mongo, config);
    await waitForBookFixed(3);
    await sidecar.stop();
    assert.ok(statesLogged(sidecar.logs).includes("sweeping"), "the sidecar swept");
    assert.equal(await metricTotal(sidecar.metrics.errors, { kind: "history_lost" }), 1);
  } finally {
    await turnFailPointOff(fixture.mongo);
  }
});

void test("a stream whose history is lost while its sweep runs stops the sweep, not the process", async () => {
  // A first start: its sweep runs beside a stream from the time noted before it. The stream's
  // first getMore fails with 286 while the sweep still corrects, page by page. Unhandled until
  // the sweep stops, that failure would end the process (Node's default for a rejection).
  const unhandled: unknown[] = [];
  const noteUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", noteUnhandled);
  const db = fixture.mongo.client.db(uniqueDatabaseName("resume_mid_sweep"));
  const books = Array.from({ length: 120 }, (_, i) => 1_000 + i);
  for (const id of books) await insertBook(db, id, 70);
  await failSidecarCommands(fixture.mongo, { commands: ["getMore"], errorCode: 286, mode: { times: 1 } });
  const sidecar = await startSidecar(fixture.mongo, testConfig(db.databaseName), {
    sweepPageSize: 10,
    waitForStreaming: false,
  });
  try {
    for (const id of books)
      await waitUntil(() => isBookCorrected(db, id, 70), { description: `book ${id} corrected` });
    assert.equal(
      await metricTotal(sidecar.metrics.errors, { kind: "history_lost" }),
      1,
      "the 286 was met once",
    );
    const sweeps = sidecar.logs.filter((line) => line.msg === "sweeping partitions");
    assert.equal(sweeps.length, 2, "the sweep stopped, and one from after the 286 ran");
    assert.deepEqual(unhandled, [], "no rejection went unhandled");
  } finally {
    await sidecar.stop();
    process.off("unhandledRejection", noteUnhandled);
    await turnFailPointOff(fixture.mongo);
    await db.dropDatabase();
  }
});
