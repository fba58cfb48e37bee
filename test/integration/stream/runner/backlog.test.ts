// A backlog written while no sidecar ran is drained by two replicas with a short lease: they
// lead or share the partitions, never both leading and never one partition owned by both at
// once (draining must not starve the lease renewals), and every book ends up with all its
// purchasers, in order, none lost or duplicated.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Db } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  allPurchasers,
  startSidecar,
  testConfig,
  users,
  type TestSidecar,
} from "../../../support/harness.js";

const BOOKS = 100;
const PUSHES_PER_BOOK = 60;
const WRITERS = 10;
const LEADER_SAMPLE_MS = 20;

const sidecars: TestSidecar[] = [];
const fixture = useTestDatabase("backlog", {
  tearDown: async () => {
    await Promise.all(sidecars.map((sidecar) => sidecar.stop()));
  },
});

/** One purchaser at a time per book, user00 first; books are written by several writers at once. */
async function writeBacklog(db: Db): Promise<void> {
  const sales = db.collection<{ _id: number; customers_purchased: string[] }>("sales");
  await sales.insertMany(Array.from({ length: BOOKS }, (_, id) => ({ _id: id, customers_purchased: [] })));
  const buyers = users(0, PUSHES_PER_BOOK);
  const writer = async (first: number) => {
    for (let id = first; id < BOOKS; id += WRITERS) {
      for (const buyer of buyers)
        await sales.updateOne({ _id: id }, { $push: { customers_purchased: buyer } });
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, first) => writer(first)));
}

/**
 * Samples the replicas until stopped: the most that led at once, and the partitions two of
 * them owned at the same moment.
 */
function sampleOwnership(replicas: readonly TestSidecar[]) {
  let mostAtOnce = 0;
  const ownedByTwo = new Set<number>();
  const timer = setInterval(() => {
    const statuses = replicas.map((replica) => replica.runner.status());
    mostAtOnce = Math.max(mostAtOnce, statuses.filter((status) => status.leader).length);
    const owned = statuses.flatMap((status) => status.partitions);
    for (const partition of owned)
      if (owned.indexOf(partition) !== owned.lastIndexOf(partition)) ownedByTwo.add(partition);
  }, LEADER_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      return { mostAtOnce, ownedByTwo: [...ownedByTwo] };
    },
  };
}

async function allBooksWhole(db: Db): Promise<boolean> {
  const broken = await db.collection("sales").countDocuments({ "customers_purchased.50": { $exists: true } });
  return broken === 0 && (await allPurchasers(db, BOOKS - 1)).length === PUSHES_PER_BOOK;
}

void test("two replicas drain a backlog of 6,000 pushes, never both writing one partition, every purchaser kept in order", async () => {
  const { mongo, db } = fixture;
  const config = testConfig(db.databaseName, { leaseSeconds: 3 });
  // A first run stores the stream's position, so that the replicas resume from before the backlog.
  const first = await startSidecar(mongo, config);
  await first.stop();
  await writeBacklog(db);

  const names = ["a", "b"];
  for (const holderId of names)
    sidecars.push(await startSidecar(mongo, config, { holderId, waitForStreaming: false }));
  const ownership = sampleOwnership(sidecars);
  await waitUntil(() => allBooksWhole(db), { timeoutMs: 60_000, description: "every book corrected" });
  const { mostAtOnce, ownedByTwo } = ownership.stop();

  // With partitions the two may share from the start: none leads then.
  assert.ok(mostAtOnce <= 1, "never two leaders at once");
  assert.deepEqual(ownedByTwo, [], "no partition owned by both at once");
  const expected = users(0, PUSHES_PER_BOOK);
  for (let id = 0; id < BOOKS; id++) {
    const book = await db.collection("sales").findOne({ _id: id as never });
    assert.equal((book?.customers_purchased as unknown[]).length, 50, `book ${id} embeds 50`);
    assert.deepEqual(await allPurchasers(db, id), expected, `book ${id} keeps every purchaser in order`);
  }
});
