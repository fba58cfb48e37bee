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
  metricTotal,
  startSidecar,
  testConfig,
  users,
  type TestSidecar,
} from "../../../support/harness.js";

let config: Config;
let first: TestSidecar;
let second: TestSidecar;

const fixture = useTestDatabase("lease", {
  setUp: async ({ mongo, db }) => {
    config = testConfig(db.databaseName, { leaseSeconds: 1 });
    first = await startSidecar(mongo, config, { holderId: "first" });
    second = await startSidecar(mongo, config, { holderId: "second", waitForStreaming: false });
    await waitUntil(() => owned(first).length > 0 && owned(second).length > 0, {
      description: "the two replicas to share the partitions",
    });
  },
  tearDown: async () => {
    await Promise.all([first?.stop(), second?.stop()]);
  },
});

const owned = (sidecar: TestSidecar): number[] => sidecar.runner.status().partitions;
const BOOKS = [1, 2, 3, 4, 5, 6, 7, 8];

void test("of two replicas each corrects only the books of the partitions it owns", async () => {
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
  const booksOf = (sidecar: TestSidecar) =>
    BOOKS.filter((id) => owned(sidecar).includes(partitionOf(id, config.partitions))).length;
  assert.ok(booksOf(first) > 0 && booksOf(second) > 0, "the books fall in both replicas' partitions");
  assert.equal(await metricTotal(first.metrics.corrections), booksOf(first));
  assert.equal(await metricTotal(second.metrics.corrections), booksOf(second));
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
