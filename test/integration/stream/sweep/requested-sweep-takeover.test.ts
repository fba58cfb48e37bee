// A requested sweep (src/stream/sweep/requested-sweeps.ts) outlives the replica performing it:
// the replica that takes its partitions over continues it after their last checkpoints.
import { test } from "node:test";
import assert from "node:assert/strict";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { requestedRuleTotals, SweepRequests } from "../../../../src/stream/sweep/sweep-requests.js";
import {
  insertBook,
  isBookCorrected,
  slowSidecarCommits,
  startSidecar,
  testConfig,
  turnFailPointOff,
} from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { requestInState } from "../../../support/sweep-requests.js";
import { storeTokenPastEveryWrite } from "../../../support/unseen-writes.js";

const fixture = useTestDatabase("requested_sweep_takeover");
const BOOKS = 40;
const RULE = "sales.customers_purchased";

void test("a requested sweep whose replica stops halfway is finished by the next owner of its partitions, from their checkpoints", async () => {
  const { mongo, db } = fixture;
  const config = testConfig(db.databaseName);
  for (let book = 1; book <= BOOKS; book += 1) await insertBook(db, book, 60);
  await storeTokenPastEveryWrite(db, config);
  const requests = new SweepRequests(db, config.stateCollection);
  const id = await requests.create([RULE], "test");
  // Slow commits, so that the sweep is still going when its replica stops.
  await slowSidecarCommits(mongo, 50);
  const first = await startSidecar(mongo, config, { sweepPageSize: 10 });
  await waitUntil(
    async () =>
      (requestedRuleTotals((await requests.find(id)) ?? { runs: {}, donePartitions: [] })[0]?.examined ??
        0) >= 10,
    {
      timeoutMs: 20_000,
      description: "a checkpoint of the requested sweep",
    },
  );
  await first.stop();
  await turnFailPointOff(mongo);
  const stopped = await requests.find(id);
  assert.equal(stopped?.state, "running");
  const checkpointed = requestedRuleTotals(stopped!)[0]!.examined;
  assert.ok(checkpointed < BOOKS, `stopped after ${checkpointed} books`);

  const second = await startSidecar(mongo, config, { sweepPageSize: 10 });
  try {
    const done = await requestInState(requests, id, "done");
    assert.equal(done.claims, 2);
    const resumed = second.logs.find((line) => line.msg === "sweeping rule")?.resumed;
    assert.equal(resumed, true, "the second replica continued from the request's checkpoint");
    // No book examined twice: the second replica read only what lay after the checkpoint (books
    // the first corrected past it are no candidates any more, so the count may be below BOOKS).
    const [progress] = requestedRuleTotals(done);
    assert.equal(progress?.completed, true);
    assert.ok(
      progress.examined <= BOOKS && progress.examined > checkpointed,
      `examined ${progress.examined}`,
    );
    for (let book = 1; book <= BOOKS; book += 1) assert.equal(await isBookCorrected(db, book, 60), true);
    const leftOver = await db
      .collection(config.stateCollection)
      .countDocuments({ _id: { $regex: `^${id}:` } as never });
    assert.equal(leftOver, 0, "the request's checkpoints are gone");
  } finally {
    await second.stop();
  }
});
