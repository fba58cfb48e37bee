// A first start sweeps the database before streaming, from a cluster time noted before the
// sweep: writes made while it sweeps must reach the stream, whatever the sweep saw of them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { startTestMongo, uniqueDatabaseName } from "../../../support/mongo.js";
import {
  allPurchasers,
  insertBook,
  isBookCorrected,
  startSidecar,
  testConfig,
  users,
  waitForCaughtUp,
} from "../../../support/harness.js";

const BOOKS = 150;

interface Book {
  _id: number;
  customers_purchased: string[];
}

void test("a book overfilled while the first-start sweep runs is corrected along with the swept ones", async () => {
  const mongo = await startTestMongo();
  const db = mongo.client.db(uniqueDatabaseName("sweep_race"));
  try {
    const books = Array.from({ length: BOOKS }, (_, i) => ({ _id: i, customers_purchased: users(0, 60) }));
    await db.collection<Book>("sales").insertMany(books);
    const sidecar = await startSidecar(mongo, testConfig(db.databaseName), { waitForStreaming: false });
    try {
      await waitUntil(() => sidecar.runner.status().state === "sweeping", {
        intervalMs: 5,
        description: "the sidecar to start sweeping",
      });
      await insertBook(db, BOOKS, 70);
      await db
        .collection<Book>("sales")
        .updateOne({ _id: 0 }, { $push: { customers_purchased: { $each: users(60, 65) } } });
      assert.equal(sidecar.runner.status().state, "sweeping", "the writes happened during the sweep");

      await waitForCaughtUp(sidecar.runner, 60_000);
      await waitUntil(() => isBookCorrected(db, BOOKS, 70), {
        description: "the book inserted during the sweep",
      });
      await waitUntil(() => isBookCorrected(db, 0, 65), {
        description: "the book pushed to during the sweep",
      });
      assert.deepEqual(await allPurchasers(db, BOOKS), users(0, 70));
      assert.deepEqual(await allPurchasers(db, 0), users(0, 65));
      for (let id = 1; id < BOOKS; id++) assert.ok(await isBookCorrected(db, id, 60), `book ${id} swept`);
    } finally {
      await sidecar.stop();
    }
  } finally {
    await db.dropDatabase();
    await mongo.close();
  }
});
