// The seed's application and a move of the same book, interleaved: the move of the 51st
// purchaser has read the book (flag set, no extra_sales yet) and holds its commit while the
// application upserts its next purchaser into extra_sales by book_id. The two writes touch
// different documents, so both commit; a chunk without seq then sorts before the move's
// chunk 0 unless the sidecar puts it after.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Db, Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import {
  allPurchasers,
  SIDECAR_APP_NAME,
  turnFailPointOff,
  useSidecarOnFreshDatabase,
  users,
  type Book,
  type ExtraSales,
} from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("outlier_upsert_race");

/** The seed's push into extra_sales once the flag is set: by book_id, upserting. */
async function pushExtra(db: Db, bookId: number, buyer: string): Promise<void> {
  await db
    .collection<ExtraSales>("extra_sales")
    .updateOne({ book_id: bookId }, { $push: { customers_purchased_extra: buyer } }, { upsert: true });
}

/** Holds the sidecar's next commit for `blockTimeMS`; returns the fail point's count before. */
async function holdNextSidecarCommit(blockTimeMS: number): Promise<number> {
  const reply = await fixture.mongo.client.db("admin").command({
    configureFailPoint: "failCommand",
    mode: { times: 1 },
    data: {
      failCommands: ["commitTransaction"],
      blockConnection: true,
      blockTimeMS,
      appName: SIDECAR_APP_NAME,
    },
  });
  return Number(reply.count);
}

async function waitForFailCommandEntered(times: number): Promise<void> {
  await fixture.mongo.client
    .db("admin")
    .command({ waitForFailPoint: "failCommand", timesEntered: times, maxTimeMS: 10_000 });
}

async function waitForNoChunkWithoutSeq(db: Db, bookId: number, total: number): Promise<string[]> {
  return waitUntil(
    async () => {
      const unnumbered = await db.collection<Document>("extra_sales").countDocuments({
        book_id: bookId,
        seq: { $exists: false },
      });
      const all = await allPurchasers(db, bookId);
      return unnumbered === 0 && all.length === total ? all : undefined;
    },
    { description: `book ${bookId}: all ${total} purchasers, in chunks that all have a seq` },
  );
}

void test("a purchaser the seed upserts into extra_sales while the 51st's move waits to commit stays after the 51st", async (t) => {
  t.after(() => turnFailPointOff(fixture.mongo));
  const { db } = fixture;
  await db
    .collection("sales")
    .insertOne({ _id: 10 as never, title: "Raced", customers_purchased: users(0, 50) });
  const entered = await holdNextSidecarCommit(1500);
  // The seed's 51st purchaser and the flag it sets after it; one update here, so that the
  // move this push calls for reads both.
  await db
    .collection<Book>("sales")
    .updateOne({ _id: 10 }, { $push: { customers_purchased: "user50" }, $set: { has_extras: true } });
  // The move has read the book and written chunk 0 in its transaction; its commit waits.
  await waitForFailCommandEntered(entered + 1);
  await pushExtra(db, 10, "user51");

  assert.deepEqual(await waitForNoChunkWithoutSeq(db, 10, 52), users(0, 52));
  // The application goes on pushing by book_id: its purchasers land after the others.
  for (const buyer of users(52, 55)) await pushExtra(db, 10, buyer);
  assert.deepEqual(await waitForNoChunkWithoutSeq(db, 10, 55), users(0, 55));
  const book = await db.collection<Book>("sales").findOne({ _id: 10 });
  assert.deepEqual(book?.customers_purchased, users(0, 50));
});
