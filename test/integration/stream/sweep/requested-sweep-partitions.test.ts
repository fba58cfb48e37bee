// A requested sweep (src/stream/sweep/requested-sweeps.ts) is performed by the owners of the
// partitions, each over its own, with the progress of each run in the request.
// docs/operations.md, "Sweeping on request".
import assert from "node:assert/strict";
import { test } from "node:test";
import { requestedRuleTotals, SweepRequests } from "../../../../src/stream/sweep/sweep-requests.js";
import {
  allPurchasers,
  insertBook,
  metricTotal,
  startReplicasSharing,
  testConfig,
  users,
  type TestSidecar,
} from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { requestInState } from "../../../support/sweep-requests.js";
import { storeTokenPastEveryWrite } from "../../../support/unseen-writes.js";

const fixture = useTestDatabase("requested_sweep_partitions");
const PARTITIONS = 4;
const BOOKS = 40;
const RULE = "sales.customers_purchased";

void test("two replicas perform a requested sweep, each over the partitions it holds", async () => {
  const { mongo, db } = fixture;
  const config = testConfig(db.databaseName, { leaseSeconds: 1, partitions: PARTITIONS });
  for (let book = 1; book <= BOOKS; book += 1) await insertBook(db, book, 60);
  await storeTokenPastEveryWrite(db, config);
  const replicas: TestSidecar[] = [];
  try {
    await startReplicasSharing(mongo, config, ["a", "b"], replicas);
    const held = new Map(
      replicas.map(({ runner }, index) => [["a", "b"][index]!, runner.status().partitions]),
    );

    const requests = new SweepRequests(db, config.stateCollection);
    const id = await requests.create([RULE], "test");
    const done = await requestInState(requests, id, "done");

    assert.deepEqual([...done.donePartitions].sort(), [0, 1, 2, 3]);
    const runs = Object.values(done.runs);
    assert.deepEqual([...new Set(runs.map((run) => run.holder))].sort(), ["a", "b"], "both performed it");
    for (const run of runs)
      assert.ok(
        run.partitions.every((partition) => held.get(run.holder)!.includes(partition)),
        `${run.holder} swept its own partitions: ${run.partitions.join()}`,
      );
    assert.equal(requestedRuleTotals(done)[0]?.examined, BOOKS, "each book examined once, by one replica");
    for (let book = 1; book <= BOOKS; book += 1) {
      assert.deepEqual(await allPurchasers(db, book), users(0, 60), `book ${book}`);
      assert.equal(await db.collection("extra_sales").countDocuments({ book_id: book }), 1, `book ${book}`);
    }
    const finished = await Promise.all(
      replicas.map(({ metrics }) => metricTotal(metrics.sweepRequests, { outcome: "done" })),
    );
    assert.equal(finished[0]! + finished[1]!, 1, "the replica sweeping the last partitions ended it");
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
  }
});
