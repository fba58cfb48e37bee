import { test } from "node:test";
import assert from "node:assert/strict";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { allPurchasers, useSidecarOnFreshDatabase, users } from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("outlier");

async function buyInBatches(bookId: number, buyers: string[], batch: number): Promise<void> {
  for (let i = 0; i < buyers.length; i += batch) {
    await fixture.db
      .collection<{ _id: number; customers_purchased: string[] }>("sales")
      .updateOne({ _id: bookId }, { $push: { customers_purchased: { $each: buyers.slice(i, i + batch) } } });
  }
}

async function waitForExtras(bookId: number, total: number): Promise<void> {
  await waitUntil(
    async () => {
      const book = await fixture.db.collection("sales").findOne({ _id: bookId as never });
      const all = await allPurchasers(fixture.db, bookId);
      return (book?.customers_purchased as unknown[]).length === 50 && all.length === total;
    },
    { description: `book ${bookId} to hold 50 buyers and ${total - 50} extras` },
  );
}

void test("a book bought by user00..user999 keeps user00..user49 and moves the rest in order", async () => {
  await fixture.db
    .collection("sales")
    .insertOne({ _id: 2 as never, title: "The Wooden Amulet", customers_purchased: [] });
  await buyInBatches(2, users(0, 1000), 100);
  await waitForExtras(2, 1000);

  const book = await fixture.db.collection("sales").findOne({ _id: 2 as never });
  assert.deepEqual(book?.customers_purchased, users(0, 50));
  assert.equal(book?.has_extras, true);
  assert.deepEqual(await allPurchasers(fixture.db, 2), users(0, 1000));
});

void test("later purchases of an outlier book land in order after the earlier extras", async () => {
  await fixture.db
    .collection("sales")
    .insertOne({ _id: 3 as never, title: "Invisible Cities", customers_purchased: [] });
  await buyInBatches(3, users(0, 120), 60);
  await waitForExtras(3, 120);
  await buyInBatches(3, users(120, 130), 1);
  await waitForExtras(3, 130);

  assert.deepEqual(await allPurchasers(fixture.db, 3), users(0, 130));
});

void test("a book under the threshold is left exactly as the application wrote it", async () => {
  await fixture.db
    .collection("sales")
    .insertOne({ _id: 4 as never, title: "Short Stories", customers_purchased: users(0, 3) });
  await fixture.db
    .collection("sales")
    .insertOne({ _id: 5 as never, title: "Marker", customers_purchased: [] });
  await buyInBatches(5, users(0, 60), 60);
  await waitForExtras(5, 60);

  const book = await fixture.db.collection("sales").findOne({ _id: 4 as never });
  assert.deepEqual(book, { _id: 4, title: "Short Stories", customers_purchased: users(0, 3) });
  assert.equal(await fixture.db.collection("extra_sales").countDocuments({ book_id: 4 }), 0);
});
