// Replicas share a first-start sweep and a history-lost one by partition
// (src/stream/sweep/partition-sweeps.ts): each sweeps and corrects only the keys of the
// partitions it holds, and every document ends corrected once. docs/semantics.md, "Sweeps by partition".
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Db } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { partitionOf } from "../../../../src/stream/partitions/hashed-key.js";
import {
  allPurchasers,
  correctionsLogged,
  partitionsEverHeld,
  insertBook,
  isBookCorrected,
  metricTotal,
  slowSidecarCommits,
  startSidecar,
  testConfig,
  turnFailPointOff,
  users,
  type TestSidecar,
} from "../../../support/harness.js";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../../../support/mongo.js";

const PARTITIONS = 6;
const STATE = "pattern_sidecar_state";

async function withDatabase(
  name: string,
  work: (mongo: TestMongo, db: Db) => Promise<void>,
  changeHistoryLimit?: number,
): Promise<void> {
  const mongo = await startTestMongo(changeHistoryLimit ? { changeHistoryLimit } : {});
  const db = mongo.client.db(uniqueDatabaseName(name));
  try {
    await work(mongo, db);
  } finally {
    await turnFailPointOff(mongo);
    await db.dropDatabase();
    await mongo.close();
  }
}

const startReplica = (mongo: TestMongo, db: Db, holderId: string) =>
  startSidecar(mongo, testConfig(db.databaseName, { leaseSeconds: 1, partitions: PARTITIONS }), {
    holderId,
    waitForStreaming: false,
    sweepPageSize: 5,
  });

const partitionsLeft = (replica: TestSidecar) =>
  metricTotal(replica.metrics.sweepPartitionsPending, { sweep: "shared" });

/** A replica that never led swept, and corrected only keys of partitions it held. */
async function assertSweptItsOwn(replica: TestSidecar, name: string): Promise<void> {
  assert.ok((await metricTotal(replica.metrics.sweepDocumentsScanned)) > 0, `${name} swept a share`);
  const held = partitionsEverHeld(replica);
  assert.ok(held.size < PARTITIONS, `${name} held only some partitions: ${[...held].join()}`);
  const corrected = correctionsLogged(replica.logs).map(({ key }) => partitionOf(key, PARTITIONS));
  assert.ok(corrected.length > 0, `${name} corrected documents`);
  assert.deepEqual(
    corrected.filter((partition) => !held.has(partition)),
    [],
    `${name} corrected keys of its partitions only`,
  );
}

async function assertEveryBookOnce(db: Db, books: readonly number[], total: number): Promise<void> {
  for (const book of books) {
    assert.deepEqual(await allPurchasers(db, book), users(0, total), `book ${book}`);
    assert.equal(await db.collection("extra_sales").countDocuments({ book_id: book }), 1, `book ${book}`);
  }
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

/** The partitions' sweeps go on over the other rules after the books: until their marks are gone. */
async function waitForSweepsDone(db: Db): Promise<void> {
  await waitUntil(
    async () => (await db.collection(STATE).countDocuments({ _id: { $regex: "^sweep:" } as never })) === 0,
    { timeoutMs: 30_000, description: "every partition's sweep done" },
  );
}

async function waitForBooks(db: Db, books: readonly number[], total: number): Promise<void> {
  await waitUntil(
    async () => {
      for (const book of books) if (!(await isBookCorrected(db, book, total))) return false;
      return true;
    },
    { timeoutMs: 90_000, intervalMs: 200, description: "every book corrected" },
  );
}

void test("three replicas share a first-start sweep, each over the partitions it holds", async () => {
  await withDatabase("shared_sweep_first_start", async (mongo, db) => {
    const books = range(1, 90);
    await db
      .collection<{ _id: number }>("sales")
      .insertMany(books.map((_id) => ({ _id, customers_purchased: users(0, 60) })));
    // Slow commits: the sweep is still going when the others join.
    await slowSidecarCommits(mongo, 40);
    const first = await startReplica(mongo, db, "a");
    const replicas = [first];
    try {
      await waitUntil(async () => (await metricTotal(first.metrics.corrections)) > 0, {
        description: "the first replica sweeping",
      });
      replicas.push(await startReplica(mongo, db, "b"), await startReplica(mongo, db, "c"));
      const [b] = replicas.slice(1);
      await waitUntil(async () => (await partitionsLeft(b!)) > 0, {
        intervalMs: 10,
        description: "b's gauge counting the partitions it sweeps",
      });
      assert.ok((await partitionsLeft(b!)) < PARTITIONS, "b sweeps only some partitions");
      await waitForBooks(db, books, 60);
      await waitForSweepsDone(db);
      await waitUntil(
        async () => (await Promise.all(replicas.map(partitionsLeft))).every((left) => left === 0),
        {
          description: "every replica's gauge back at 0",
        },
      );
      await assertSweptItsOwn(replicas[1]!, "b");
      await assertSweptItsOwn(replicas[2]!, "c");
      await assertEveryBookOnce(db, books, 60);
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop()));
    }
  });
});

void test("a restart whose history is lost is swept by partition, shared by the replicas", async () => {
  const HISTORY = 300;
  await withDatabase(
    "shared_sweep_history_lost",
    async (mongo, db) => {
      const before = [await startReplica(mongo, db, "a"), await startReplica(mongo, db, "b")];
      await insertBook(db, 1, 60);
      await waitForBooks(db, [1], 60);
      await waitUntil(
        async () =>
          (await db
            .collection(STATE)
            .countDocuments({ _id: { $regex: "^position\\.partition\\." } as never })) === PARTITIONS,
        { description: "every partition's position stored" },
      );
      await Promise.all(before.map((replica) => replica.stop()));

      const books = range(2, 60);
      for (const book of books) await insertBook(db, book, 60);
      await db.collection("unwatched").insertMany(range(0, HISTORY + 50).map((_id) => ({ _id }) as never));
      await slowSidecarCommits(mongo, 40);
      const after = [await startReplica(mongo, db, "a"), await startReplica(mongo, db, "b")];
      try {
        await waitForBooks(db, books, 60);
        await waitForSweepsDone(db);
        const lost = await Promise.all(
          after.map((replica) => metricTotal(replica.metrics.errors, { kind: "history_lost" })),
        );
        assert.ok(lost[0]! + lost[1]! > 0, "the stored positions had fallen off the history");
        await assertSweptItsOwn(after[1]!, "b");
        await assertEveryBookOnce(db, [1, ...books], 60);
      } finally {
        await Promise.all(after.map((replica) => replica.stop()));
      }
    },
    HISTORY,
  );
});
