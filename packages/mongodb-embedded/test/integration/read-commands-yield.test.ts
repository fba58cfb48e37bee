// A read that scans a large collection must not hold up the server's other clients until it
// ends: mongod's queries yield, so another connection's writes issued meanwhile are answered
// while the scan runs. Without the yield none could be: the scan would hold the server's only
// thread from its first document to its last.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Collection, Db, MongoClient } from "mongodb";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../support/mongo.js";

const BOOKS = 50_000;
/** A scan that never yields lets none through; one that does, one or two per yield. */
const WRITES_WHILE_SCANNING = 3;

type Book = { _id: number; tags: string[] };

let mongo: TestMongo;
let reader: MongoClient;
let writer: MongoClient;
let db: Db;
let books: Collection<Book>;

before(async () => {
  mongo = await startTestMongo();
  reader = await mongo.newClient();
  writer = await mongo.newClient();
  db = reader.db(uniqueDatabaseName("server_read_yield"));
  books = db.collection<Book>("books");
  await books.insertMany(Array.from({ length: BOOKS }, (_, _id) => ({ _id, tags: ["a", "b"] })));
});
after(async () => {
  await db.dropDatabase();
  await Promise.all([reader.close(), writer.close()]);
  await mongo.close();
});

/** Inserts on the writer's connection, one after another, until `read` settles; counts them. */
async function writesDuring<T>(read: Promise<T>): Promise<{ writes: number; result: T }> {
  let finished = false;
  const settled = read.finally(() => (finished = true));
  const other = writer.db(db.databaseName).collection("other");
  let writes = 0;
  while (!finished) {
    await other.insertOne({});
    if (!finished) writes += 1;
  }
  return { writes, result: await settled };
}

function assertAnsweredMeanwhile(writes: number, what: string): void {
  assert.ok(
    writes >= WRITES_WHILE_SCANNING,
    `only ${writes} writes of another connection were answered while ${what} scanned ${BOOKS} books`,
  );
}

// No book matches: every read below examines each one (building a list of 100 numbers for it,
// so that a scan takes a while) and returns none.
const UNMATCHED = { $expr: { $gt: [{ $size: { $range: [0, 100] } }, 100] } };

void test("a find that scans the collection lets another connection write while it runs", async () => {
  const { writes, result } = await writesDuring(books.find(UNMATCHED).toArray());
  assertAnsweredMeanwhile(writes, "a find");
  assert.deepEqual(result, []);
});

void test("a count that scans the collection lets another connection write while it runs", async () => {
  const { writes, result } = await writesDuring(db.command({ count: "books", query: UNMATCHED }));
  assertAnsweredMeanwhile(writes, "a count");
  assert.equal(result.n, 0);
});

void test("a distinct that scans the collection lets another connection write while it runs", async () => {
  const { writes, result } = await writesDuring(books.distinct("tags", UNMATCHED));
  assertAnsweredMeanwhile(writes, "a distinct");
  assert.deepEqual(result, []);
});

void test("an aggregate whose $match scans the collection lets another connection write while it runs", async () => {
  const pipeline = [{ $match: UNMATCHED }, { $group: { _id: null, n: { $sum: 1 } } }];
  const { writes, result } = await writesDuring(books.aggregate(pipeline).toArray());
  assertAnsweredMeanwhile(writes, "an aggregate");
  assert.deepEqual(result, []);
});

void test("a find of many _ids lets another connection write while it runs", async () => {
  const ids = Array.from({ length: BOOKS }, (_, i) => i);
  const { writes, result } = await writesDuring(books.find({ _id: { $in: ids }, ...UNMATCHED }).toArray());
  assertAnsweredMeanwhile(writes, "a find of _ids");
  assert.deepEqual(result, []);
});

void test("killSessions interrupts a scan of the session at its next yield", async () => {
  const session = reader.startSession();
  try {
    const scan = books.find(UNMATCHED, { session }).toArray();
    const outcome = scan.then(
      () => "finished",
      (error: unknown) => error,
    );
    // The writes are answered at the scan's yields: once two are, it runs.
    const other = writer.db(db.databaseName).collection("other");
    for (let writes = 0; writes < 2; writes += 1) await other.insertOne({});
    await writer.db("admin").command({ killSessions: [{ id: session.id!.id }] });
    assert.deepEqual(
      { code: ((await outcome) as { code?: number }).code },
      { code: 11601 },
      "the killed scan ended with Interrupted",
    );
  } finally {
    await session.endSession();
  }
});
