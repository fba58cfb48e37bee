import { test } from "node:test";
import assert from "node:assert/strict";
import { streamName } from "../../../../src/stream/position/token-store.js";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useTestDatabase } from "../../../support/mongo.js";
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
