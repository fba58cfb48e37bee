// The seed's outlier application logic running beside the sidecar: once `has_extras` is
// true the application writes new purchasers to `extra_sales` itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Db } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { startTestMongo, uniqueDatabaseName } from "../../../support/mongo.js";
import {
  allPurchasers,
  startSidecar,
  testConfig,
  useSidecarOnFreshDatabase,
  users,
  type Book,
  type ExtraSales,
} from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("outlier_app");

// The seed's logic as an application written for the sidecar does it: the push to `sales`
// is conditional on the flag in the same update (no read-then-write gap), and the flag is
// left to the sidecar, which sets it in the transaction that moves the excess. Otherwise
// the seed's own `updateOne({book_id}, {$push}, {upsert: true})`: the application knows
// only book_id, so its push lands in the first extra_sales document the {book_id, seq}
// index returns.
async function buyFollowingTheSeed(db: Db, bookId: number, buyer: string): Promise<void> {
  const pushed = await db
    .collection<Book>("sales")
    .updateOne({ _id: bookId, has_extras: { $ne: true } }, { $push: { customers_purchased: buyer } });
  if (pushed.matchedCount === 1) return;
  await db
    .collection<ExtraSales>("extra_sales")
    .updateOne({ book_id: bookId }, { $push: { customers_purchased_extra: buyer } }, { upsert: true });
}

async function waitForSettled(db: Db, bookId: number, total: number): Promise<string[]> {
  return waitUntil(
    async () => {
      const book = await db.collection<Book>("sales").findOne({ _id: bookId });
      const all = await allPurchasers(db, bookId);
      return book !== null && book.customers_purchased.length <= 50 && all.length === total ? all : undefined;
    },
    { description: `book ${bookId} to be within the threshold with all ${total} purchasers` },
  );
}

void test("purchasers bought one by one through the seed's logic end up once each, in order", async () => {
  await fixture.db.collection<Book>("sales").insertOne({ _id: 1, title: "Popular", customers_purchased: [] });
  const buyers = users(0, 300);
  for (const buyer of buyers) await buyFollowingTheSeed(fixture.db, 1, buyer);

  assert.deepEqual(await waitForSettled(fixture.db, 1, 300), buyers);
  const book = await fixture.db.collection<Book>("sales").findOne({ _id: 1 });
  assert.deepEqual(book?.customers_purchased, users(0, 50));
  assert.equal(book?.has_extras, true);
});

void test("extras the seed's application pushes to extra_sales itself are left where it put them", async () => {
  await fixture.db.collection<Book>("sales").insertOne({ _id: 2, title: "Outlier", customers_purchased: [] });
  await fixture.db
    .collection<Book>("sales")
    .updateOne({ _id: 2 }, { $push: { customers_purchased: { $each: users(0, 60) } } });
  await waitForSettled(fixture.db, 2, 60);
  const before = await fixture.db.collection("extra_sales").find({ book_id: 2 }).toArray();
  assert.equal(before.length, 1);

  for (const buyer of users(60, 100)) await buyFollowingTheSeed(fixture.db, 2, buyer);
  // A later book the sidecar must correct: once it is corrected, the stream has passed the
  // application's extra_sales writes above.
  await fixture.db
    .collection<Book>("sales")
    .insertOne({ _id: 3, title: "Marker", customers_purchased: users(0, 51) });
  await waitForSettled(fixture.db, 3, 51);

  const after = await fixture.db.collection("extra_sales").find({ book_id: 2 }).toArray();
  assert.deepEqual(after, [
    { ...before[0], customers_purchased_extra: [...users(50, 60), ...users(60, 100)] },
  ]);
  assert.deepEqual(await allPurchasers(fixture.db, 2), users(0, 100));
});

// The seed also tells the application to set has_extras itself once its push makes the
// array longer than 50. Its next purchaser then goes to extra_sales (an upserted document
// without seq) while the 51st still waits in sales for the sidecar, which must put the
// 51st first. Built here as the state a lagging (or stopped) sidecar finds.
void test("a 51st purchaser the seed's application left in sales stays before the purchasers it pushed to extra_sales next", async () => {
  const mongo = await startTestMongo();
  const db = mongo.client.db(uniqueDatabaseName("outlier_app_flag"));
  try {
    await db
      .collection<Book>("sales")
      .insertOne({ _id: 4, title: "Flagged", customers_purchased: users(0, 51), has_extras: true });
    await db
      .collection<ExtraSales>("extra_sales")
      .insertOne({ book_id: 4, customers_purchased_extra: users(51, 53) });
    const sidecar = await startSidecar(mongo, testConfig(db.databaseName));
    try {
      assert.deepEqual(await waitForSettled(db, 4, 53), users(0, 53));
    } finally {
      await sidecar.stop();
    }
  } finally {
    await db.dropDatabase();
    await mongo.close();
  }
});
