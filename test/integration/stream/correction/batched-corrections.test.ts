// Corrections of books whose events showed them broken share transactions (one fence, one
// bulk write per collection, one commit for several books); a shared transaction that fails
// is undone whole and each of its books is then corrected on its own, none lost or doubled.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Db } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { uniqueDatabaseName, useTestDatabase } from "../../../support/mongo.js";
import {
  CORRECTION_INSERT_COMMANDS,
  allPurchasers,
  failSidecarCommands,
  insertBook,
  startSidecar,
  testConfig,
  turnFailPointOff,
  users,
  type TestSidecar,
  correctionsLogged,
  waitForCaughtUp,
} from "../../../support/harness.js";

const BOOKS = 40;
const DOCUMENT_VALIDATION_FAILURE = 121;

const sidecars: TestSidecar[] = [];
const fixture = useTestDatabase("batched", {
  tearDown: async () => {
    await Promise.all(sidecars.map((sidecar) => sidecar.stop()));
    await turnFailPointOff(fixture.mongo);
  },
});

async function start(db: Db, concurrency = 8): Promise<TestSidecar> {
  const sidecar = await startSidecar(fixture.mongo, testConfig(db.databaseName, { concurrency }), {
    waitForStreaming: false,
  });
  sidecars.push(sidecar);
  return sidecar;
}

/**
 * BOOKS books at the threshold, each pushed one purchaser past it while no sidecar ran; with
 * `earlierExtra`, each already holds that one extra in its chunk 0, as a correction left it.
 */
async function writeBacklog(label: string, earlierExtra?: string): Promise<Db> {
  const db = fixture.mongo.client.db(uniqueDatabaseName(label));
  const first = await start(db);
  // Swept, not only caught up: a sweep left pending would race the next sidecar's stream.
  await waitForCaughtUp(first.runner);
  await first.stop();
  for (let id = 0; id < BOOKS; id++) await insertBook(db, id, 50);
  if (earlierExtra !== undefined) {
    await db.collection("sales").updateMany({}, { $set: { has_extras: true } });
    await db.collection("extra_sales").insertMany(
      Array.from({ length: BOOKS }, (_, id) => ({
        _id: { book_id: id, seq: 0 } as never,
        book_id: id,
        seq: 0,
        customers_purchased_extra: [earlierExtra],
      })),
    );
  }
  const sales = db.collection<{ _id: number; customers_purchased: string[] }>("sales");
  for (let id = 0; id < BOOKS; id++)
    await sales.updateOne({ _id: id }, { $push: { customers_purchased: "user50" } });
  return db;
}

async function assertEveryBookWhole(db: Db, earlierExtras: string[] = []): Promise<void> {
  await waitUntil(
    async () =>
      (await db.collection("sales").countDocuments({ "customers_purchased.50": { $exists: true } })) === 0,
    { timeoutMs: 15_000, description: "every book corrected" },
  );
  for (let id = 0; id < BOOKS; id++)
    assert.deepEqual(
      await allPurchasers(db, id),
      [...users(0, 50), ...earlierExtras, "user50"],
      `book ${id}`,
    );
}

function batchSizes(sidecar: TestSidecar): number[] {
  return correctionsLogged(sidecar.logs).map((correction) => correction.batch);
}

/** Corrects a backlog with `concurrency` slots: every book whole, some in shared transactions. */
async function assertCorrectedInSharedTransactions(label: string, concurrency: number): Promise<void> {
  const db = await writeBacklog(label);
  const sidecar = await start(db, concurrency);
  await assertEveryBookWhole(db);
  const batches = batchSizes(sidecar);
  assert.equal(batches.length, BOOKS);
  assert.ok(
    batches.some((size) => size > 1),
    `no shared transaction: ${batches.join()}`,
  );
  await db.dropDatabase();
}

void test("books corrected in shared transactions keep every purchaser once, in order", () =>
  assertCorrectedInSharedTransactions("batched_ok", 8));

void test("with one slot, the books waiting for it share its transactions", () =>
  assertCorrectedInSharedTransactions("batched_one_slot", 1));

// A lone push's correction may be planned from its event, assuming no chunk exists yet; a
// shared transaction reads instead, or every restart's backlog of books corrected before
// would undo its batches.
void test("after a restart, pushes onto books corrected before still share transactions", async () => {
  const db = await writeBacklog("batched_after_restart", "earlier");
  const sidecar = await start(db);
  await assertEveryBookWhole(db, ["earlier"]);
  assert.ok(
    batchSizes(sidecar).some((size) => size > 1),
    `no shared transaction: ${batchSizes(sidecar).join()}`,
  );
  assert.equal(
    sidecar.logs.filter((line) => line.msg === "shared correction failed; correcting one by one").length,
    0,
  );
  await db.dropDatabase();
});

void test("a shared transaction the server fails is undone and each of its books is corrected alone", async () => {
  const db = await writeBacklog("batched_fallback");
  await failSidecarCommands(fixture.mongo, {
    commands: CORRECTION_INSERT_COMMANDS,
    errorCode: DOCUMENT_VALIDATION_FAILURE,
    mode: { times: 1 },
  });
  const sidecar = await start(db);
  await assertEveryBookWhole(db);
  const failed = sidecar.logs.filter(
    (line) => line.msg === "shared correction failed; correcting one by one",
  );
  assert.equal(failed.length, 1);
  // Counted as an attempt beyond the first, under the books' rule: the only one made.
  const retries = (await sidecar.metrics.transactionRetries.get()).values;
  assert.deepEqual(
    retries.filter(({ value }) => value > 0).map(({ labels, value }) => [labels.rule, value]),
    [["sales.customers_purchased", 1]],
  );
  const corrected = correctionsLogged(sidecar.logs).map((correction) => correction.key as number);
  assert.deepEqual(
    corrected.sort((a, b) => a - b),
    Array.from({ length: BOOKS }, (_, id) => id),
  );
  await db.dropDatabase();
});
