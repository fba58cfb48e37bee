// A backlog written while no sidecar ran is drained by two replicas with a short lease: one
// leads throughout (draining must not starve its lease renewals), and every book ends up
// with all its purchasers, in order, none lost or duplicated.
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

/** Samples which replicas lead until stopped: the most that led at once, and every leader seen. */
function sampleLeaders(replicas: readonly TestSidecar[], names: readonly string[]) {
  let mostAtOnce = 0;
  const leaders: string[] = [];
  const timer = setInterval(() => {
    const leading = names.filter((_, i) => replicas[i]!.runner.status().leader);
    mostAtOnce = Math.max(mostAtOnce, leading.length);
    for (const name of leading) if (leaders[leaders.length - 1] !== name) leaders.push(name);
  }, LEADER_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      return { mostAtOnce, leaders };
    },
  };
}

async function allBooksWhole(db: Db): Promise<boolean> {
  const broken = await db.collection("sales").countDocuments({ "customers_purchased.50": { $exists: true } });
  return broken === 0 && (await allPurchasers(db, BOOKS - 1)).length === PUSHES_PER_BOOK;
}

void test("two replicas drain a backlog of 6,000 pushes with one leader throughout, every purchaser kept in order", async () => {
  const { mongo, db } = fixture;
  const config = testConfig(db.databaseName, { leaseSeconds: 3 });
  // A first run stores the stream's position, so that the replicas resume from before the backlog.
  const first = await startSidecar(mongo, config);
  await first.stop();
  await writeBacklog(db);

  const names = ["a", "b"];
  for (const holderId of names)
    sidecars.push(await startSidecar(mongo, config, { holderId, waitForStreaming: false }));
  const leadership = sampleLeaders(sidecars, names);
  await waitUntil(() => allBooksWhole(db), { timeoutMs: 60_000, description: "every book corrected" });
  const { mostAtOnce, leaders } = leadership.stop();

  assert.equal(mostAtOnce, 1, "never two leaders at once");
  assert.equal(leaders.length, 1, `one replica led throughout: ${leaders.join(" -> ")}`);
  const expected = users(0, PUSHES_PER_BOOK);
  for (let id = 0; id < BOOKS; id++) {
    const book = await db.collection("sales").findOne({ _id: id as never });
    assert.equal((book?.customers_purchased as unknown[]).length, 50, `book ${id} embeds 50`);
    assert.deepEqual(await allPurchasers(db, id), expected, `book ${id} keeps every purchaser in order`);
  }
});
