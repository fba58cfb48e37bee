// A change stream draining a large backlog must not hold up the server's other clients: its
// getMores return bounded batches, and commands of other connections are answered while a
// getMore is still being worked on.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { CommandStartedEvent, CommandSucceededEvent, Document, MongoClient, Timestamp } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const BOOKS = 20_000;
const BATCH_SIZE = 1_000;

type Book = { _id: number; buyers: string[] };

const fixture = useTestDatabase("server_stream_backlog", {
  setUp: async ({ db }) => {
    const books: Book[] = Array.from({ length: BOOKS }, (_, i) => ({ _id: i, buyers: ["a"] }));
    await db.collection<Book>("books").insertMany(books);
  },
});

interface Interval {
  start: number;
  end: number;
}

/** Every getMore this client sends, with when it was sent and answered and how many events it carried. */
function recordGetMores(client: MongoClient): { intervals: Interval[]; sizes: number[] } {
  const started = new Map<number, number>();
  const recorded = { intervals: [] as Interval[], sizes: [] as number[] };
  client.on("commandStarted", (event: CommandStartedEvent) => {
    if (event.commandName === "getMore") started.set(event.requestId, performance.now());
  });
  client.on("commandSucceeded", (event: CommandSucceededEvent) => {
    const start = started.get(event.requestId);
    if (event.commandName !== "getMore" || start === undefined) return;
    recorded.intervals.push({ start, end: performance.now() });
    recorded.sizes.push(((event.reply as Document).cursor as Document).nextBatch.length as number);
  });
  return recorded;
}

/** Pings one after another until `done` settles; returns when each was sent and answered. */
async function pingUntil(client: MongoClient, done: Promise<unknown>): Promise<Interval[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const pings: Interval[] = [];
  while (!finished) {
    const start = performance.now();
    await client.db("admin").command({ ping: 1 });
    pings.push({ start, end: performance.now() });
  }
  return pings;
}

async function drain(client: MongoClient, from: Timestamp): Promise<unknown[]> {
  const stream = client
    .db(fixture.db.databaseName)
    .collection("books")
    .watch([{ $match: { operationType: "update" } }], {
      startAtOperationTime: from,
      fullDocument: "updateLookup",
      batchSize: BATCH_SIZE,
    });
  const ids: unknown[] = [];
  try {
    while (ids.length < BOOKS) ids.push(((await stream.next()) as Document).documentKey._id);
  } finally {
    await stream.close();
  }
  return ids;
}

void test("a stream draining 20,000 pending events returns batches of at most batchSize while another connection's pings are answered inside its getMores", async () => {
  const { mongo, db } = fixture;
  const hello = await db.command({ hello: 1 });
  const from = hello.operationTime as Timestamp;
  await db.collection<Book>("books").updateMany({}, { $push: { buyers: "b" } });

  const reader = await mongo.newClient({ monitorCommands: true });
  const getMores = recordGetMores(reader);
  const pinger = await mongo.newClient();
  const drained = drain(reader, from);
  const pings = await pingUntil(pinger, drained);
  const ids = await drained;

  assert.deepEqual(
    ids,
    Array.from({ length: BOOKS }, (_, i) => i),
  );
  assert.ok(getMores.sizes.length > 1, `the backlog took more than one getMore (${getMores.sizes.length})`);
  assert.ok(
    getMores.sizes.every((size) => size <= BATCH_SIZE),
    `every getMore returns at most ${BATCH_SIZE} events: ${getMores.sizes.join(", ")}`,
  );
  const pingInsideGetMore = pings.some((ping) =>
    getMores.intervals.some((getMore) => ping.start > getMore.start && ping.end < getMore.end),
  );
  assert.ok(pingInsideGetMore, "some ping was answered while a getMore was still being worked on");
});

void test("a change stream's first batch holds at most 101 events when no batchSize is given", async () => {
  const { db } = fixture;
  const from = (await db.command({ hello: 1 })).operationTime as Timestamp;
  await db.collection<Book>("books").updateMany({ _id: { $lt: 500 } }, { $push: { buyers: "c" } });
  const reply = await db.command({
    aggregate: "books",
    pipeline: [{ $changeStream: { startAtOperationTime: from } }],
    cursor: {},
  });
  const cursor = reply.cursor as Document;
  assert.ok((cursor.firstBatch as unknown[]).length <= 101);
  await db.command({ killCursors: "books", cursors: [cursor.id] });
});
