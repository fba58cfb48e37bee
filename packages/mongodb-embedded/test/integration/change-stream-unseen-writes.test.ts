// A stream passes over the writes it does not see, through the official driver (embedded
// server or MONGODB_URI): mongod's post-batch token moves past the oplog entries it filters out.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChangeStream, Document } from "mongodb";
import { openStream, useFreshDatabases } from "./change-stream-support.js";

const fixture = useFreshDatabases();
const freshDb = (label: string) => fixture.freshDb(label);
const T = { timeout: 30_000 };
/** Far more records than the server reads in one slice (256). */
const OTHER_WRITES = 1_000;

async function writeElsewhere(label: string): Promise<void> {
  const other = freshDb(label).collection("noise");
  for (let start = 0; start < OTHER_WRITES; start += 100) {
    await other.insertMany(Array.from({ length: 100 }, (_, i) => ({ n: start + i })));
  }
}

/** The stream's next event, or a failure once `ms` have passed without one. */
async function nextWithin(stream: ChangeStream<Document, Document>, ms: number): Promise<Document> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no event within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([stream.next(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

void test(
  "a database stream delivers its write promptly after 1,000 writes to another database",
  T,
  async () => {
    const db = freshDb("unseen_watched");
    const stream = await openStream(db.watch());
    try {
      await writeElsewhere("unseen_other");
      await db.collection("books").insertOne({ _id: 1 as never });
      const event = await nextWithin(stream, 5_000);
      assert.equal(event.operationType, "insert");
      assert.deepEqual(event.documentKey, { _id: 1 });
    } finally {
      await stream.close();
    }
  },
);

void test(
  "a stream's resume token moves past writes it does not see, and resumes from there",
  T,
  async () => {
    const db = freshDb("unseen_token");
    const stream = await openStream(db.watch());
    try {
      const before = stream.resumeToken;
      await writeElsewhere("unseen_token_other");
      assert.equal(await stream.tryNext(), null);
      const passed = stream.resumeToken as Document;
      assert.notDeepEqual(passed, before);
      await db.collection("books").insertOne({ _id: 2 as never });
      const resumed = db.watch([], { resumeAfter: passed });
      try {
        const event = await nextWithin(resumed, 5_000);
        assert.deepEqual(event.documentKey, { _id: 2 });
      } finally {
        await resumed.close();
      }
    } finally {
      await stream.close();
    }
  },
);
