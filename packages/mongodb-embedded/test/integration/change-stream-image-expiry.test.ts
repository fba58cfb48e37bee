// Pre- and post-images kept for changeStreamOptions.preAndPostImages.expireAfterSeconds, set by
// setClusterParameter, as the manual's page reference/cluster-parameters/changeStreamOptions
// describes ("off" by default: kept as long as the oplog keeps their events). mongod removes
// expired images in a periodic job, so a test waits for them to go.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { MongoServerError, type Collection, type Document, type Timestamp } from "mongodb";
import { useFreshDatabases } from "./change-stream-support.js";

const fixture = useFreshDatabases();
const admin = () => fixture.mongo.client.db("admin");

const setImageExpiry = (expireAfterSeconds: number | "off") =>
  admin().command({
    setClusterParameter: { changeStreamOptions: { preAndPostImages: { expireAfterSeconds } } },
  });

async function imageExpiry(): Promise<unknown> {
  const reply = await admin().command({ getClusterParameter: "changeStreamOptions" });
  return ((reply.clusterParameters as Document[])[0]!.preAndPostImages as Document).expireAfterSeconds;
}

const isBadValue = (error: unknown) => error instanceof MongoServerError && error.code === 2;

/** The first delete event at or after `from`, with the pre-image mode given. */
async function deleteEvent(
  collection: Collection,
  from: Timestamp,
  fullDocumentBeforeChange: "whenAvailable" | "required",
): Promise<Document> {
  const stream = collection.watch([{ $match: { operationType: "delete" } }], {
    startAtOperationTime: from,
    fullDocumentBeforeChange,
  });
  try {
    return await stream.next();
  } finally {
    await stream.close();
  }
}

void test("setClusterParameter takes expireAfterSeconds as off or a positive number, as getClusterParameter reports", async () => {
  try {
    for (const wrong of [0, -1, "unknown"] as never[])
      await assert.rejects(setImageExpiry(wrong), isBadValue);
    await setImageExpiry(10);
    assert.equal(Number(await imageExpiry()), 10);
  } finally {
    await setImageExpiry("off");
  }
  assert.equal(await imageExpiry(), "off");
});

void test(
  "a delete event outlives its pre-image once expireAfterSeconds have passed",
  { timeout: 60_000 },
  async () => {
    const db = fixture.freshDb("cs_image_expiry");
    const collection = await db.createCollection("reviews", {
      changeStreamPreAndPostImages: { enabled: true },
    });
    const session = fixture.mongo.client.startSession();
    try {
      await collection.insertOne({ _id: "r1" as never, stars: 5 }, { session });
      const from = session.operationTime!;
      await collection.deleteOne({ _id: "r1" as never });
      assert.deepEqual((await deleteEvent(collection, from, "whenAvailable")).fullDocumentBeforeChange, {
        _id: "r1",
        stars: 5,
      });
      await setImageExpiry(1);
      let event = await deleteEvent(collection, from, "whenAvailable");
      while (event.fullDocumentBeforeChange !== null) {
        await sleep(500);
        event = await deleteEvent(collection, from, "whenAvailable");
      }
      assert.deepEqual(event.documentKey, { _id: "r1" });
      // NoMatchingDocument, as mongod's pre-image stage answers when one is required.
      await assert.rejects(
        deleteEvent(collection, from, "required"),
        (error) => error instanceof MongoServerError && error.code === 47,
      );
    } finally {
      await session.endSession();
      await setImageExpiry("off");
    }
  },
);
