// A document whose correction the server refuses every time (here: failCommand with
// DocumentValidationFailure on the commands that carry the sidecar's inserts, as a validator
// on extra_sales would) is logged with its key, counted and left as it is; the sidecar goes
// on with the others.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Db } from "mongodb";
import { streamName } from "../../../../src/stream/position/token-store.js";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../../../support/mongo.js";
import {
  CORRECTION_INSERT_COMMANDS,
  failSidecarCommands,
  insertBook,
  isBookCorrected,
  metricTotal,
  startSidecar,
  statesLogged,
  testConfig,
  turnFailPointOff,
  users,
  waitForCaughtUp,
  type LogLine,
} from "../../../support/harness.js";

const DOCUMENT_VALIDATION_FAILURE = 121;
const SKIPPED_MESSAGE = /server refuses to write/;

let mongo: TestMongo;
const databases: Db[] = [];

before(async () => {
  mongo = await startTestMongo();
});

after(async () => {
  await Promise.all(databases.map((db) => db.dropDatabase()));
  await mongo?.close();
});

function freshDatabase(label: string): Db {
  const db = mongo.client.db(uniqueDatabaseName(label));
  databases.push(db);
  return db;
}

/** Fails the commands carrying the sidecar's inserts (an outlier move inserts its overflow chunk) with code 121. */
async function refuseSidecarInserts(mode: "alwaysOn" | { times: number }): Promise<void> {
  await failSidecarCommands(mongo, {
    commands: CORRECTION_INSERT_COMMANDS,
    errorCode: DOCUMENT_VALIDATION_FAILURE,
    mode,
  });
}

async function assertLeftAsItWas(db: Db, bookId: number): Promise<void> {
  const book = await db.collection("sales").findOne({ _id: bookId as never });
  assert.deepEqual(book, { _id: bookId, customers_purchased: users(0, 70) });
  assert.equal(await db.collection("extra_sales").countDocuments({ book_id: bookId }), 0);
}

function skippedLines(logs: readonly LogLine[]): LogLine[] {
  return logs.filter((line) => SKIPPED_MESSAGE.test(String(line.msg)));
}

void test("a streamed document the server refuses to correct is logged with its key, counted and left as it is, and the next one is corrected", async () => {
  const db = freshDatabase("failing_stream");
  const sidecar = await startSidecar(mongo, testConfig(db.databaseName));
  try {
    await refuseSidecarInserts("alwaysOn");
    try {
      await insertBook(db, 1, 70);
      await waitUntil(() => skippedLines(sidecar.logs).length > 0, {
        description: "the refused correction to be logged",
      });
    } finally {
      await turnFailPointOff(mongo);
    }
    await insertBook(db, 2, 70);
    await waitUntil(() => isBookCorrected(db, 2, 70), { description: "book 2 to be corrected" });
    await waitForCaughtUp(sidecar.runner);

    const [line, ...more] = skippedLines(sidecar.logs);
    assert.equal(more.length, 0, "logged once, not retried");
    assert.equal(line?.level, 50, "at error level");
    assert.equal(line?.collection, "sales");
    assert.equal(line?.key, 1);
    assert.equal((line?.err as { code?: unknown } | undefined)?.code, DOCUMENT_VALIDATION_FAILURE);
    const rule = String(line?.rule);
    assert.equal(
      await metricTotal(sidecar.metrics.corrections, {
        rule,
        collection: "sales",
        kind: "skipped_bad_document",
      }),
      1,
    );
    assert.equal(await metricTotal(sidecar.metrics.errors, { kind: "bad_document" }), 1);
    await assertLeftAsItWas(db, 1);
  } finally {
    await sidecar.stop();
  }
});

void test("a sweep skips the one document the server refuses to correct and corrects the others", async () => {
  const db = freshDatabase("failing_sweep");
  const config = testConfig(db.databaseName);
  // A first run leaves the writer lease behind, so that the next takeover inserts nothing;
  // without its stored position the next start is a first start again, which sweeps.
  await (await startSidecar(mongo, config)).stop();
  await db.collection(config.stateCollection).deleteOne({ _id: streamName(db.databaseName) as never });
  for (const bookId of [1, 2, 3]) await insertBook(db, bookId, 70);

  await refuseSidecarInserts({ times: 1 });
  try {
    const sidecar = await startSidecar(mongo, config);
    await sidecar.stop();

    assert.deepEqual(statesLogged(sidecar.logs).slice(0, 2), ["sweeping", "streaming"]);
    const skipped = skippedLines(sidecar.logs);
    assert.equal(skipped.length, 1, "one document skipped");
    const refusedId = skipped[0]?.key as number;
    await assertLeftAsItWas(db, refusedId);
    for (const bookId of [1, 2, 3].filter((id) => id !== refusedId))
      assert.ok(await isBookCorrected(db, bookId, 70), `book ${bookId} corrected by the sweep`);
    assert.equal(await metricTotal(sidecar.metrics.corrections, { kind: "skipped_bad_document" }), 1);
    assert.equal(await metricTotal(sidecar.metrics.corrections, { kind: "moved" }), 2);
  } finally {
    await turnFailPointOff(mongo);
  }
});
