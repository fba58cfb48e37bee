// A correction that keeps failing for a reason the sidecar cannot classify (here: failCommand
// with Unauthorized on the commands carrying the sidecar's inserts) is parked after `parkAfterAttempts`: recorded
// in the state collection, counted, and the stream moves past it; the parked document is
// retried with backoff and leaves the list once it is corrected.
import assert from "node:assert/strict";
import { test } from "node:test";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  CORRECTION_INSERT_COMMANDS,
  failSidecarCommands,
  insertBook,
  isBookCorrected,
  metricTotal,
  startSidecar,
  testConfig,
  turnFailPointOff,
  type TestSidecar,
} from "../../../support/harness.js";

const UNAUTHORIZED = 13;
let sidecar: TestSidecar | undefined;
const fixture = useTestDatabase("parking", { tearDown: async () => sidecar?.stop() });

function parkedEntries() {
  return fixture.db
    .collection("pattern_sidecar_state")
    .find({ "_id.parked": { $exists: true } })
    .toArray();
}

void test("a document whose correction keeps failing is parked, the stream moves past it, and it is unparked once corrected", async () => {
  sidecar = await startSidecar(fixture.mongo, testConfig(fixture.db.databaseName, { parkAfterAttempts: 2 }));
  const running = sidecar;
  await failSidecarCommands(fixture.mongo, {
    commands: CORRECTION_INSERT_COMMANDS,
    errorCode: UNAUTHORIZED,
    mode: "alwaysOn",
  });
  try {
    await insertBook(fixture.db, 1, 70);
    await waitUntil(async () => (await metricTotal(running.metrics.parked)) === 1, {
      description: "book 1 to be parked",
    });
  } finally {
    await turnFailPointOff(fixture.mongo);
  }
  const [entry] = await parkedEntries();
  assert.equal(entry?.key, 1);
  assert.equal(entry?.rule, "sales.customers_purchased");
  assert.ok((entry?.attempts as number) >= 2);
  assert.match(String(entry?.error), /failCommand/);
  assert.equal(await metricTotal(running.metrics.errors, { kind: "parked" }), 1);
  assert.ok(running.logs.some((line) => /parked document/.test(String(line.msg)) && line.key === 1));

  await insertBook(fixture.db, 2, 70);
  await waitUntil(() => isBookCorrected(fixture.db, 2, 70), { description: "book 2, after the parked one" });
  await waitUntil(() => isBookCorrected(fixture.db, 1, 70), { description: "the parked book, on a retry" });
  await waitUntil(async () => (await parkedEntries()).length === 0, {
    description: "book 1 to leave the list",
  });
  assert.equal(await metricTotal(running.metrics.parked), 0);
});
