// A replica killed in the middle of its partitions' sweep (a real CLI process, SIGKILLed): the
// replica taking its partition continues that partition's sweep after its checkpoint
// (src/stream/sweep/partition-sweeps.ts). docs/semantics.md, "Sweeps by partition".
import assert from "node:assert/strict";
import { test } from "node:test";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import type { SweepCheckpoint } from "../../../../src/stream/sweep/sweep-checkpoints.js";
import { useCliReplicas } from "../../../support/cli-replicas.js";
import { allPurchasers, startSidecar, testConfig, users, type LogLine } from "../../../support/harness.js";

const PARTITIONS = 2;
const BOOKS = 6000;
const RULE = "sales.customers_purchased";
const { fixture, start } = useCliReplicas("shared_sweep_takeover");

const state = () => fixture.db.collection<SweepCheckpoint>("pattern_sidecar_state");
const checkpointId = (partition: number) => `sweep:partition.${partition}:${RULE}:source`;
const checkpointOf = (partition: number) => state().findOne({ _id: checkpointId(partition) });

/** Each partition's checkpoint of the rule, in one read. */
async function checkpointsAfter(): Promise<Map<number, string>> {
  const ids = [0, 1].map(checkpointId);
  const found = await state()
    .find({ _id: { $in: ids } })
    .toArray();
  return new Map(found.map((checkpoint) => [ids.indexOf(checkpoint._id), String(checkpoint.after)]));
}

/** The log lines from the first saying `partition` is swept (with others or not) on. */
function sweepOf(logs: readonly LogLine[], partition: number): LogLine[] {
  const from = logs.findIndex(
    (line) => line.msg === "sweeping partitions" && (line.partitions as number[]).includes(partition),
  );
  return from < 0 ? [] : logs.slice(from);
}

void test("a killed replica's partition sweep continues after its checkpoint on the replica taking it", async () => {
  const { db, mongo } = fixture;
  const books = Array.from({ length: BOOKS }, (_, i) => ({ _id: i, customers_purchased: users(0, 51) }));
  await db.collection<{ _id: number }>("sales").insertMany(books);
  const killed = await start(`partitions: ${PARTITIONS}\n`);
  await waitUntil(async () => (await checkpointOf(0)) !== null, {
    timeoutMs: 30_000,
    description: "the first replica sweeping every partition",
  });
  const taker = await startSidecar(
    mongo,
    testConfig(db.databaseName, { leaseSeconds: 2, partitions: PARTITIONS }),
    {
      holderId: "taker",
      waitForStreaming: false,
    },
  );
  try {
    await waitUntil(() => taker.runner.status().partitions.length === 1, {
      timeoutMs: 30_000,
      description: "the partitions shared",
    });
    const [own] = taker.runner.status().partitions;
    const theirs = 1 - own!;
    // Their partition's sweep moved on, by the killed replica alone, from where they both stood.
    const shared = await checkpointsAfter();
    await waitUntil(
      async () => {
        const now = await checkpointsAfter();
        return now.get(theirs) !== shared.get(theirs) && now.get(theirs) !== now.get(own!);
      },
      { timeoutMs: 30_000, description: "the killed replica's partition swept on its own" },
    );
    killed.kill("SIGKILL");
    await new Promise((resolve) => killed.once("exit", resolve));
    const left = await checkpointOf(theirs);
    assert.ok(left, "the killed replica's partition was left halfway, with a checkpoint");

    await waitUntil(() => taker.runner.status().partitions.length === PARTITIONS, {
      timeoutMs: 30_000,
      description: "the killed replica's partition taken",
    });
    await waitUntil(async () => (await state().countDocuments({ _id: { $regex: "^sweep:" } })) === 0, {
      timeoutMs: 90_000,
      intervalMs: 200,
      description: "every partition swept",
    });
    const continued = sweepOf(taker.logs, theirs);
    assert.equal(continued[0]?.resumed, true, "the taker swept their partition from its checkpoint");
    const ruleLine = continued.find((line) => line.msg === "sweeping rule" && line.rule === RULE);
    assert.equal(ruleLine?.resumed, true, "the rule's sweep continued after the checkpoint");

    for (let book = 0; book < BOOKS; book += 1) {
      assert.equal((await allPurchasers(db, book)).length, 51, `book ${book}`);
    }
    assert.equal(
      await db.collection("extra_sales").countDocuments({}),
      BOOKS,
      "one overflow document per book",
    );
  } finally {
    await taker.stop();
  }
});
