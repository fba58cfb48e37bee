// extra_sales documents an application overfills past chunkSize (5 here, so that the
// splits stay small): the sidecar splits them, keeping every purchaser and their order.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { allPurchasers, useSidecarOnFreshDatabase, users } from "../../../support/harness.js";

const CHUNK_SIZE = 5;

interface ExtraSales {
  book_id: number;
  customers_purchased_extra: string[];
}

const fixture = useSidecarOnFreshDatabase("outlier_chunks", {
  rules: [{ pattern: "outlier", chunkSize: CHUNK_SIZE }, { pattern: "bucket" }, { pattern: "subset" }],
});

function chunksOf(bookId: number): Promise<Document[]> {
  return fixture.db.collection("extra_sales").find({ book_id: bookId }).sort({ seq: 1 }).toArray();
}

async function waitForChunks(bookId: number, total: number): Promise<Document[]> {
  return waitUntil(
    async () => {
      const chunks = await chunksOf(bookId);
      const sizes = chunks.map((chunk) => (chunk.customers_purchased_extra as unknown[]).length);
      const settled = sizes.every((size) => size <= CHUNK_SIZE) && sizes.reduce((a, b) => a + b, 0) === total;
      return settled ? chunks : undefined;
    },
    { description: `book ${bookId}'s ${total} extras to sit in chunks of at most ${CHUNK_SIZE}` },
  );
}

async function insertOutlierBook(bookId: number): Promise<void> {
  await fixture.db.collection("sales").insertOne({
    _id: bookId as never,
    title: `Book ${bookId}`,
    customers_purchased: users(0, 50),
    has_extras: true,
  });
}

void test("an extra_sales document overfilled to 23 purchasers becomes chunks of 5, 5, 5, 5 and 3 in order", async () => {
  await insertOutlierBook(1);
  // user55 bought twice: equal purchasers are two purchases, both kept.
  const extras = [...users(50, 60), "user55", ...users(60, 72)];
  await fixture.db.collection("extra_sales").insertOne({ book_id: 1, customers_purchased_extra: extras });

  const chunks = await waitForChunks(1, 23);
  assert.deepEqual(
    chunks.map((chunk) => [chunk.seq, (chunk.customers_purchased_extra as unknown[]).length]),
    [
      [0, 5],
      [1, 5],
      [2, 5],
      [3, 5],
      [4, 3],
    ],
  );
  assert.deepEqual(await allPurchasers(fixture.db, 1), [...users(0, 50), ...extras]);
});

void test("an extra_sales document an application pushes past chunkSize in many small writes is split in order", async () => {
  await insertOutlierBook(2);
  const { insertedId } = await fixture.db
    .collection("extra_sales")
    .insertOne({ book_id: 2, customers_purchased_extra: [] });
  // Pushed by _id, so that every purchase lands in this one document, full or not.
  for (const buyer of users(50, 80)) {
    await fixture.db
      .collection<ExtraSales>("extra_sales")
      .updateOne({ _id: insertedId }, { $push: { customers_purchased_extra: buyer } });
  }

  await waitForChunks(2, 30);
  assert.deepEqual(await allPurchasers(fixture.db, 2), users(0, 80));
});

// Relies on mongod answering `updateOne({book_id})` from the {book_id, seq} index (lowest seq
// first), as the embedded server does too.
void test("purchasers the seed's application pushes into a full first chunk move after the last chunk", async () => {
  await fixture.db
    .collection("sales")
    .insertOne({ _id: 3 as never, title: "Book 3", customers_purchased: users(0, 62) });
  await waitForChunks(3, 12);
  for (const buyer of users(62, 70)) {
    // The seed's push: the application knows only book_id, so it lands in the first chunk
    // the {book_id, seq} index returns, which the sidecar filled before opening the next.
    await fixture.db
      .collection<ExtraSales>("extra_sales")
      .updateOne({ book_id: 3 }, { $push: { customers_purchased_extra: buyer } }, { upsert: true });
  }

  await waitForChunks(3, 20);
  assert.deepEqual(await allPurchasers(fixture.db, 3), users(0, 70));
});
