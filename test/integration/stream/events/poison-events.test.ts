// A change stream that fails again at one position (the server cannot hand over the next
// event) is read past, not reopened at the same token for ever: first with a narrower stream,
// then, if that fails too, by a sweep and a stream from a fresh cluster time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  failSidecarCommands,
  insertBook,
  isBookCorrected,
  metricTotal,
  startSidecar,
  statesLogged,
  testConfig,
  waitForCaughtUp,
  type LogLine,
  type TestSidecar,
} from "../../../support/harness.js";

const BSON_OBJECT_TOO_LARGE = 10334;

const database = useTestDatabase("poison_events");

function logged(logs: readonly LogLine[], message: string): number {
  return logs.filter((line) => line.msg?.startsWith(message)).length;
}

async function withSidecar(check: (sidecar: TestSidecar) => Promise<void>): Promise<void> {
  const sidecar = await startSidecar(database.mongo, testConfig(database.db.databaseName));
  try {
    await check(sidecar);
  } finally {
    await sidecar.stop();
  }
}

void test("a stream that fails twice at one position is read past with a narrower stream, once", async () => {
  await withSidecar(async (sidecar) => {
    // The running getMore fails, then the reopened stream's first: both at the stored token.
    await failSidecarCommands(database.mongo, {
      commands: ["getMore"],
      errorCode: BSON_OBJECT_TOO_LARGE,
      mode: { times: 2 },
    });
    await waitUntil(() => logged(sidecar.logs, "change stream failed twice") === 1, {
      description: "the repeated failure to be noticed",
    }).catch((e) => {
      console.log(
        JSON.stringify(
          sidecar.logs.filter((l) => (l.level as number) >= 40),
          null,
          1,
        ).slice(0, 5000),
      );
      throw e;
    });
    await insertBook(database.db, 1, 60);
    await waitUntil(() => isBookCorrected(database.db, 1, 60), { description: "book 1 corrected" });
    assert.equal(await metricTotal(sidecar.metrics.errors, { kind: "poison_event" }), 1);
    assert.equal(logged(sidecar.logs, "the narrower stream failed"), 0);
  });
});

void test("a narrower stream that fails at that position too gives way to a sweep, then streaming goes on", async () => {
  await withSidecar(async (sidecar) => {
    await failSidecarCommands(database.mongo, {
      commands: ["getMore"],
      errorCode: BSON_OBJECT_TOO_LARGE,
      mode: { times: 3 },
    });
    await waitUntil(() => logged(sidecar.logs, "the narrower stream failed") === 1, {
      description: "the narrow stream's failure to be noticed",
    });
    await waitForCaughtUp(sidecar.runner);
    assert.ok(statesLogged(sidecar.logs).includes("sweeping"));
    await insertBook(database.db, 2, 70);
    await waitUntil(() => isBookCorrected(database.db, 2, 70), { description: "book 2 corrected" });
    assert.equal(await metricTotal(sidecar.metrics.errors, { kind: "poison_event" }), 2);
  });
});
