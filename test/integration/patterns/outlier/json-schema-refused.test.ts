// A correction the collection's $jsonSchema validator refuses (extra_sales allows 500 entries
// per chunk, the rule's chunks hold 1000): the server answers DocumentValidationFailure, which
// no retry changes. The book is skipped once, left whole, and the reason names the refused
// write, and the failed rule where the driver hands the server's errInfo over (before 8.0: its
// client bulkWrite keeps only a write error's code and message).
import { test } from "node:test";
import assert from "node:assert/strict";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import {
  insertBook,
  isBookCorrected,
  metricTotal,
  startSidecar,
  testConfig,
  users,
  waitForCaughtUp,
  type LogLine,
  type TestSidecar,
} from "../../../support/harness.js";
import { useTestDatabase, type ServerVersion, type TestDatabase } from "../../../support/mongo.js";

const CHUNK_SCHEMA = { properties: { customers_purchased_extra: { bsonType: "array", maxItems: 500 } } };

function useValidatedDatabase(serverVersion: ServerVersion) {
  const handles: { sidecar?: TestSidecar; fixture?: TestDatabase } = {};
  handles.fixture = useTestDatabase(`outlier_json_schema_${serverVersion}`, {
    serverVersion,
    setUp: async ({ mongo, db }) => {
      await db.createCollection("extra_sales", { validator: { $jsonSchema: CHUNK_SCHEMA } });
      handles.sidecar = await startSidecar(mongo, testConfig(db.databaseName));
    },
    tearDown: async () => handles.sidecar?.stop(),
  });
  return handles as { sidecar: TestSidecar; fixture: TestDatabase };
}

const on80 = useValidatedDatabase("8.0");
const on70 = useValidatedDatabase("7.0");

const skippedLines = (logs: readonly LogLine[]) =>
  logs.filter((line) => /server refuses to write/.test(String(line.msg)));

/** Corrects a book the validator refuses and one it takes; returns the refusal's reason. */
async function refusedReason({ sidecar, fixture }: { sidecar: TestSidecar; fixture: TestDatabase }) {
  await insertBook(fixture.db, 1, 1_050);
  await waitUntil(() => skippedLines(sidecar.logs).length > 0, {
    description: "the refused correction logged",
  });
  await insertBook(fixture.db, 2, 400);
  await waitUntil(() => isBookCorrected(fixture.db, 2, 400), { description: "book 2 corrected" });
  await waitForCaughtUp(sidecar.runner);

  const [line, ...more] = skippedLines(sidecar.logs);
  assert.equal(more.length, 0, "skipped once, not retried");
  assert.equal(line?.key, 1);
  assert.equal(await metricTotal(sidecar.metrics.corrections, { kind: "skipped_bad_document" }), 1);
  const book = await fixture.db.collection("sales").findOne({ _id: 1 as never });
  assert.deepEqual(book?.customers_purchased, users(0, 1_050));
  assert.equal(await fixture.db.collection("extra_sales").countDocuments({ book_id: 1 }), 0);
  return String(line?.reason);
}

const REFUSED_CHUNK = 'Document failed validation (insertOne on extra_sales, _id {"book_id":1,"seq":0})';

void test("a move the $jsonSchema validator refuses is skipped once, naming the refused chunk, the book left whole", async () => {
  assert.equal(await refusedReason(on80), REFUSED_CHUNK);
});

void test("before 8.0 the skip's reason also names the validator's rule the chunk broke", async () => {
  assert.equal(
    await refusedReason(on70),
    `${REFUSED_CHUNK}: customers_purchased_extra: {"maxItems":500} (array did not match specified length)`,
  );
});
