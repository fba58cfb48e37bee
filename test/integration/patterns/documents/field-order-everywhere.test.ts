// The writes field-order.test.ts (beside the other documents tests) leaves out: a loose trade
// folded into a bucket, a product's reviews trimmed to its newest, corrections made by the
// sweep rather than the stream, and `migrate`. Each moved entry is compared as bytes with
// what was written (docs/semantics.md, "Field order").
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { migrateOnce } from "../../../../src/cli/commands/migrate.js";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { createLogger } from "../../../../src/ops/logger.js";
import { startSidecar, testConfig } from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  asBytes,
  bytesOf,
  insertOrdered,
  ordered,
  orderedWithout,
  withId,
  rawDocuments,
} from "../../../support/ordered-bson.js";

const fixture = useTestDatabase("field_order_everywhere");

const START = Date.UTC(2024, 0, 1);
const MINUTE = 60_000;

/**
 * A loose trade (the bucket seed's schema before buckets) with integer-like names among others,
 * and a DBRef written `$id` first (js-bson writes a DBRef's `$ref` first).
 */
const looseTrade = (customerId: number, i: number): Document =>
  ordered(
    ["ticker", `T${i}`],
    ["2", i],
    ["customerId", customerId],
    ["1", "one"],
    ["date", new Date(START + i * MINUTE)],
    ["account", ordered(["$id", i], ["$ref", "accounts"])],
  );

/** What a bucket holds of a loose trade: all but its `_id` and its customer, in their order. */
const asEntry = (trade: Document): Buffer => bytesOf(orderedWithout(trade, "_id", "customerId"));

const review = (i: number): Document =>
  ordered(["review_id", i], ["2", "two"], ["1", "one"], ["published_date", new Date(START + i * 86_400_000)]);

const entry = (i: number): Document => ordered(["b", `x${i}`], ["2", 1], ["1", i]);

const sortedBytes = (values: Buffer[]): Buffer[] => [...values].sort(Buffer.compare);

async function historiesOf(customerId: number, count: number): Promise<Buffer[]> {
  const buckets = await waitUntil(
    async () => {
      const found = await rawDocuments(fixture.db, "trades", { customerId }, { _id: 1 });
      const entries = found.flatMap((bucket) => (bucket.history as unknown[] | undefined) ?? []);
      return entries.length === count && found.every((doc) => doc.history !== undefined) ? found : undefined;
    },
    { description: `customer ${customerId}'s ${count} trades to be in buckets` },
  );
  return buckets.flatMap((bucket) => (bucket.history as unknown[]).map(asBytes));
}

async function withSidecar(run: () => Promise<void>): Promise<void> {
  const sidecar = await startSidecar(fixture.mongo, testConfig(fixture.db.databaseName));
  try {
    await run();
  } finally {
    await sidecar.stop();
  }
}

void test("loose trades folded into a bucket by the stream keep the bytes they were written with", async () => {
  await withSidecar(async () => {
    const trades = [looseTrade(31, 0), looseTrade(31, 1), looseTrade(31, 2)];
    // One by one, as an application writes them.
    for (const [i, trade] of trades.entries())
      await insertOrdered(fixture.db, "trades", withId(`loose${i}`, trade));
    assert.deepEqual(await historiesOf(31, 3), trades.map(asEntry));
  });
});

void test("a product's reviews trimmed to its newest ten keep the bytes they were written with", async () => {
  await withSidecar(async () => {
    const productId = ordered(["b", 1], ["1", 1]);
    const reviews = Array.from({ length: 12 }, (_, i) => review(i));
    await insertOrdered(
      fixture.db,
      "products",
      ordered(["_id", productId], ["name", "Trimmed"], ["reviews", reviews]),
    );
    const product = await waitUntil(
      async () => {
        const [found] = await rawDocuments(fixture.db, "products", { _id: productId }, { _id: 1 });
        return (found?.reviews as unknown[] | undefined)?.length === 10 ? found : undefined;
      },
      { description: "the product's reviews to be trimmed to ten" },
    );
    const kept = (product.reviews as unknown[]).map(asBytes);
    assert.deepEqual(sortedBytes(kept), sortedBytes(reviews.slice(2).map(bytesOf)));
  });
});

void test("corrections the sweep makes of documents written before the sidecar started move the bytes written", async () => {
  const bookId = ordered(["b", 2], ["1", 2]);
  const entries = Array.from({ length: 53 }, (_, i) => entry(i));
  await insertOrdered(
    fixture.db,
    "sales",
    ordered(["_id", bookId], ["title", "Swept"], ["customers_purchased", entries]),
  );
  const trades = [looseTrade(32, 0), looseTrade(32, 1)];
  await insertOrdered(fixture.db, "trades", ...trades.map((trade, i) => withId(`swept${i}`, trade)));

  await withSidecar(async () => {
    const chunks = await waitUntil(
      async () => {
        const found = await rawDocuments(fixture.db, "extra_sales", { book_id: bookId }, { seq: 1 });
        const moved = found.flatMap((chunk) => chunk.customers_purchased_extra as unknown[]);
        return moved.length === 3 ? found : undefined;
      },
      { description: "the book's three entries past its threshold to be moved" },
    );
    const moved = chunks.flatMap((chunk) => (chunk.customers_purchased_extra as unknown[]).map(asBytes));
    assert.deepEqual(moved, entries.slice(50).map(bytesOf));
    for (const chunk of chunks) assert.deepEqual(asBytes(chunk.book_id), bytesOf(bookId));
    assert.deepEqual(await historiesOf(32, 2), trades.map(asEntry));
  });
});

void test("migrate makes buckets of loose trades that keep the bytes they were written with", async () => {
  const trades = Array.from({ length: 12 }, (_, i) => looseTrade(33, i));
  await insertOrdered(fixture.db, "trades", ...trades.map((trade, i) => withId(`migrated${i}`, trade)));
  const client = await fixture.mongo.newClient({ appName: "field-order-migrate" });
  const config = testConfig(fixture.db.databaseName, { rules: [{ pattern: "bucket" }] });
  const [report] = await migrateOnce({
    deployment: { client, db: client.db(config.database) },
    config,
    logger: createLogger({ level: "silent" }),
    dryRun: false,
  });
  assert.equal(report?.moved, 12);
  assert.deepEqual(await historiesOf(33, 12), trades.map(asEntry));
});
