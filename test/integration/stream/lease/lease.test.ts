// Two replicas share the partitions: each corrects only the books of its own, and one left
// alone takes them all (docs/semantics.md, "Partitions").
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Config } from "../../../../src/config/schema.js";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { partitionOf } from "../../../../src/stream/partitions/hashed-key.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  allPurchasers,
  correctionsLogged,
  metricTotal,
  partitionsEverHeld,
  startReplicasSharing,
  testConfig,
  users,
  type TestSidecar,
} from "../../../support/harness.js";

let config: Config;
let first: TestSidecar;
let second: TestSidecar;
/** The partitions each replica owned once they shared them evenly, and how many lines it had logged. */
let shares: [number[], number[]];
let logged: Map<TestSidecar, number>;

const fixture = useTestDatabase("lease", {
  setUp: async ({ mongo, db }) => {
    config = testConfig(db.databaseName, { leaseSeconds: 1 });
    const started: TestSidecar[] = [];
    try {
      await startReplicasSharing(mongo, config, ["first", "second"], started);
    } finally {
      [first, second] = started as [TestSidecar, TestSidecar];
    }
    shares = [owned(first), owned(second)];
    logged = new Map([first, second].map((replica) => [replica, replica.logs.length]));
  },
  tearDown: async () => {
    await Promise.all([first?.stop(), second?.stop()]);
  },
});

const owned = (sidecar: TestSidecar): number[] => sidecar.runner.status().partitions;
const BOOKS = [1, 2, 3, 4, 5, 6, 7, 8];
const booksIn = (partitions: readonly number[]) =>
  BOOKS.filter((id) => partitions.includes(partitionOf(id, config.partitions)));

void test("of two replicas each corrects only the books of the partitions it owns", async () => {
  assert.ok(booksIn(shares[0]).length > 0, "some books fall in the first replica's share");
  assert.ok(booksIn(shares[1]).length > 0, "some books fall in the second replica's share");
  const sales = fixture.db.collection("sales");
  await sales.insertMany(BOOKS.map((id) => ({ _id: id as never, customers_purchased: users(0, 80) })));
  await waitUntil(
    async () => {
      const held = await Promise.all(BOOKS.map(async (id) => (await allPurchasers(fixture.db, id)).length));
      const corrected =
        (await metricTotal(first.metrics.corrections)) + (await metricTotal(second.metrics.corrections));
      return held.every((count) => count === 80) && corrected === BOOKS.length;
    },
    { description: "every book to be corrected once" },
  );
  // By the partitions each replica held at some time since they shared them evenly, not those
  // it holds now: under load a renewal can come late, and a lease then lapses (and may move).
  const correctedBy = async (replica: TestSidecar, name: string) => {
    const books = correctionsLogged(replica.logs).map(({ key }) => key as number);
    const its = booksIn([...partitionsEverHeld(replica, logged.get(replica))]);
    assert.deepEqual(
      books.filter((book) => !its.includes(book)),
      [],
      `the ${name} replica's books only`,
    );
    assert.equal(await metricTotal(replica.metrics.corrections), books.length);
    return books;
  };
  const books = [...(await correctedBy(first, "first")), ...(await correctedBy(second, "second"))];
  assert.deepEqual(
    books.sort((a, b) => a - b),
    BOOKS,
    "every book corrected once, by one replica",
  );
});

void test("a replica left alone takes every partition over and corrects", async () => {
  await first.stop();
  await waitUntil(() => owned(second).length === config.partitions, {
    description: "the second replica to own every partition",
  });
  const before = await metricTotal(second.metrics.corrections);
  await fixture.db.collection("sales").insertOne({ _id: 100 as never, customers_purchased: users(0, 60) });
  await waitUntil(async () => (await metricTotal(second.metrics.corrections)) > before, {
    description: "the replica left alone to correct book 100",
  });
  const book = await fixture.db.collection("sales").findOne({ _id: 100 as never });
  assert.equal((book?.customers_purchased as string[]).length, 50);
  assert.deepEqual(await allPurchasers(fixture.db, 100), users(0, 60));
});
