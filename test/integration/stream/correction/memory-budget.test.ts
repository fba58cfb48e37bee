// The readers admit each document they decode into the corrections' memory budget, by its
// BSON size as the server sent it, and decode nothing while the budget is spent.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BSON, type CommandStartedEvent, type Db, type Document, type MongoClient } from "mongodb";
import { readBucketState, readBucketStates } from "../../../../src/patterns/bucket/reader.js";
import { BatchOverBudgetError } from "../../../../src/errors.js";
import type { ReadContext } from "../../../../src/patterns/driver.js";
import { readOutlierStates } from "../../../../src/patterns/outlier/reader.js";
import { readSubsetStates } from "../../../../src/patterns/subset/reader.js";
import { MemoryBudget } from "../../../../src/stream/correction/memory-budget.js";
import {
  SMALL_DOCUMENT_BYTES,
  SMALL_SINGLE_DOCUMENT_BYTES,
} from "../../../../src/patterns/reads/admitted-read.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { bucketRule, outlierRule, subsetRule, users } from "../../../unit/patterns/support/rules.js";

let client: MongoClient;
const fixture = useTestDatabase("memory_budget", {
  async setUp({ mongo }) {
    client = await mongo.newClient({ monitorCommands: true });
  },
});

/** The names of the commands `work` sends through `client`. */
async function commandsOf(work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const record = (event: CommandStartedEvent) => sent.push(event.commandName);
  client.on("commandStarted", record);
  try {
    await work();
  } finally {
    client.off("commandStarted", record);
  }
  return sent;
}

const BUDGET = 1024 * 1024;

interface Case {
  name: string;
  collection: string;
  document: Document;
  /** The document as the read's reply holds it, when it adds to what is stored. */
  readAs?: Document;
  read(reads: ReadContext, db?: Db): Promise<unknown>;
}

const cases: Case[] = [
  {
    name: "an outlier source",
    collection: "sales",
    document: { _id: 1, customers_purchased: users(0, 60) },
    // The reader's $lookup joins the source's last chunk (none) to it.
    readAs: { _id: 1, customers_purchased: users(0, 60), __patternSidecarLastChunk: [] },
    read: (reads, db = fixture.db) => readOutlierStates(db, outlierRule, [1], reads),
  },
  {
    name: "a bucket",
    collection: "trades",
    document: { _id: "c_1", customerId: "c", count: 11, history: users(0, 11).map((u) => ({ u })) },
    read: (reads, db = fixture.db) => readBucketState(db, bucketRule, "c_1", reads),
  },
  {
    name: "a subset's product",
    collection: "products",
    document: { _id: 1, reviews: [] },
    // The reader's $lookup joins the product's newest reviews (none) to it.
    readAs: { _id: 1, reviews: [], __patternSidecarNewest: [] },
    read: (reads, db = fixture.db) =>
      readSubsetStates(db, subsetRule, [{ sourceId: 1 }], { ...reads, stateCollection: "state" }),
  },
];

/**
 * Runs `read` while another correction holds `taken` of a budget of `capacity`: checks that it
 * decodes nothing until that one releases its share, then returns what it read, its hold, and
 * the bytes the budget held after each change.
 */
async function readOnceReleased<T>(
  read: (reads: ReadContext) => Promise<T>,
  { capacity = BUDGET, taken = capacity }: { capacity?: number; taken?: number } = {},
) {
  let waited!: () => void;
  const waiting = new Promise<void>((resolve) => (waited = resolve));
  const held: number[] = [];
  const budget = new MemoryBudget(capacity, { held: (bytes) => held.push(bytes), waited });
  const other = budget.hold();
  await other.plan().admit(taken);
  const hold = budget.hold();
  let decoded = false;
  const reading = read({ budget: hold.plan() }).then((result) => {
    decoded = true;
    return result;
  });
  await waiting;
  assert.equal(decoded, false, "nothing is decoded while the budget cannot take it");
  other.release();
  return { result: await reading, hold, held };
}

for (const { name, collection, document, readAs = document, read } of cases) {
  void test(`reading ${name} waits for the memory budget, then admits its BSON size`, async () => {
    await fixture.db.collection(collection).insertOne(document as never);
    const { hold, held } = await readOnceReleased(read);
    assert.equal(held.at(-1), BSON.calculateObjectSize(readAs));
    hold.release();
  });
}

async function insertBuckets(keys: string[]): Promise<Document[]> {
  const buckets = keys.map((key) => ({
    _id: `${key}_1`,
    customerId: key,
    count: 11,
    history: users(0, 11).map((u) => ({ u, pad: "x".repeat(BUDGET / 22) })),
  }));
  await fixture.db.collection("trades").insertMany(buckets as never);
  return buckets;
}

void test("a batch of buckets waits for the memory budget before it reads, then admits their sizes together", async () => {
  const buckets = await insertBuckets(["d", "e"]);
  const {
    result: states,
    hold,
    held,
  } = await readOnceReleased(
    (reads) => readBucketStates(fixture.db, bucketRule, ["d_1", "e_1", "missing"], reads),
    { capacity: 2 * BUDGET, taken: BUDGET + 1 },
  );
  assert.deepEqual(
    states.buckets.map((bucket) => bucket?._id ?? null),
    ["d_1", "e_1", null],
  );
  const total = buckets.reduce((sum, bucket) => sum + BSON.calculateObjectSize(bucket), 0);
  assert.equal(held.at(-1), total, "the batch's documents are admitted together, once");
  hold.release();
  assert.equal(held.at(-1), 0);
});

void test("a batch the whole budget cannot hold is refused before it reads, to be split into single corrections", async () => {
  const buckets = await insertBuckets(["f", "g", "h"]);
  const total = buckets.reduce((sum, bucket) => sum + BSON.calculateObjectSize(bucket), 0);
  assert.ok(total > BUDGET);
  const held: number[] = [];
  const budget = new MemoryBudget(BUDGET, { held: (bytes) => held.push(bytes), waited: () => {} });
  const hold = budget.hold();
  await assert.rejects(
    readBucketStates(fixture.db, bucketRule, ["f_1", "g_1", "h_1"], { budget: hold.plan() }),
    (error: unknown) =>
      error instanceof BatchOverBudgetError && error.context.bytes === total && error.context.documents === 3,
  );
  assert.deepEqual(held, [], "nothing was admitted");
  // Alone, each is read within the budget.
  for (const id of ["f_1", "g_1", "h_1"]) {
    const single = budget.hold();
    assert.notEqual(await readBucketState(fixture.db, bucketRule, id, { budget: single.plan() }), null);
    single.release();
  }
  assert.ok(held.every((bytes) => bytes <= BUDGET));
  hold.release();
});

/** Buckets of `trades` entries each: past the threshold, small (a hundred bytes an entry). */
async function insertSmallBuckets(keys: string[], trades = 11): Promise<Document[]> {
  const buckets = keys.map((key) => ({
    _id: `${key}_1`,
    customerId: key,
    count: trades,
    history: users(0, trades).map((u) => ({ u, pad: "x".repeat(80) })),
  }));
  await fixture.db.collection("trades").insertMany(buckets as never);
  return buckets;
}

const sizeOf = (documents: Document[]) =>
  documents.reduce((sum, doc) => sum + BSON.calculateObjectSize(doc), 0);

void test("a batch of small documents the budget takes at once is read in one command, its size not asked", async () => {
  const buckets = await insertSmallBuckets(["k", "l"]);
  const held: number[] = [];
  const budget = new MemoryBudget(BUDGET, { held: (bytes) => held.push(bytes), waited: () => {} });
  const hold = budget.hold();
  const db = client.db(fixture.db.databaseName);
  const sent = await commandsOf(() =>
    readBucketStates(db, bucketRule, ["k_1", "l_1"], { budget: hold.plan() }),
  );
  assert.equal(sent[0], "find", "the buckets, first");
  assert.equal(sent.includes("aggregate"), false, "no size asked");
  assert.equal(held.at(-1), sizeOf(buckets));
  hold.release();
});

void test("a batch of small products is read in one command, what its join adds admitted with them", async () => {
  const products = [
    { _id: 21, reviews: [] },
    { _id: 22, reviews: [] },
  ];
  await fixture.db.collection("products").insertMany(products as never);
  const held: number[] = [];
  const budget = new MemoryBudget(BUDGET, { held: (bytes) => held.push(bytes), waited: () => {} });
  const hold = budget.hold();
  const db = client.db(fixture.db.databaseName);
  const sent = await commandsOf(() =>
    readSubsetStates(db, subsetRule, [{ sourceId: 21 }, { sourceId: 22 }], {
      budget: hold.plan(),
      stateCollection: "state",
    }),
  );
  assert.deepEqual(sent, ["aggregate"], "the products and their newest reviews, no size asked");
  // As the reply holds them: each with its (empty) newest reviews joined.
  assert.equal(held.at(-1), sizeOf(products.map((product) => ({ ...product, __patternSidecarNewest: [] }))));
  hold.release();
});

void test("a batch with a document over the small size asks the batch's size first", async () => {
  const small = await insertSmallBuckets(["m"]);
  const large = await insertSmallBuckets(["n"], 400);
  assert.ok(BSON.calculateObjectSize(large[0]!) > SMALL_DOCUMENT_BYTES);
  const held: number[] = [];
  const budget = new MemoryBudget(BUDGET, { held: (bytes) => held.push(bytes), waited: () => {} });
  const hold = budget.hold();
  const db = client.db(fixture.db.databaseName);
  let states: Awaited<ReturnType<typeof readBucketStates>> | undefined;
  const sent = await commandsOf(async () => {
    states = await readBucketStates(db, bucketRule, ["m_1", "n_1"], { budget: hold.plan() });
  });
  assert.deepEqual(sent.slice(0, 3), ["find", "aggregate", "find"], "small ones, the size, then all");
  assert.deepEqual(
    states!.buckets.map((bucket) => bucket?._id),
    ["m_1", "n_1"],
  );
  assert.equal(held.at(-1), sizeOf([...small, ...large]), "admitted once, not the small ones twice");
  hold.release();
});

void test("a batch of small documents that would wait for the budget waits before it decodes, holding nothing", async () => {
  const buckets = await insertSmallBuckets(["o", "p"]);
  const { hold, held } = await readOnceReleased((reads) =>
    readBucketStates(fixture.db, bucketRule, ["o_1", "p_1"], reads),
  );
  assert.equal(held.at(-1), sizeOf(buckets));
  hold.release();
});

/** The default budget (`correctionMemoryMiB`): idle, it takes a document of any size at once. */
const DEFAULT_BUDGET = 16 * 1024 * 1024;

void test("a small document alone is read in one command while other corrections hold part of the budget", async () => {
  await insertSmallBuckets(["q"]);
  const budget = new MemoryBudget(DEFAULT_BUDGET);
  const other = budget.hold();
  await other.plan().admit(1);
  const hold = budget.hold();
  const db = client.db(fixture.db.databaseName);
  let state: Awaited<ReturnType<typeof readBucketState>> | undefined;
  const sent = await commandsOf(async () => {
    state = await readBucketState(db, bucketRule, "q_1", { budget: hold.plan() });
  });
  assert.deepEqual(sent, ["find"], "the bucket, its size not asked (and no split _id taken to look up)");
  assert.equal(state?.bucket._id, "q_1");
  assert.equal((state?.bucket.history as unknown[]).length, 11);
  hold.release();
  other.release();
});

void test("a document alone over the small size has its size asked before it is read", async () => {
  const [large] = await insertSmallBuckets(["r"], 12_000);
  assert.ok(BSON.calculateObjectSize(large!) > SMALL_SINGLE_DOCUMENT_BYTES);
  const held: number[] = [];
  const budget = new MemoryBudget(BUDGET, { held: (bytes) => held.push(bytes), waited: () => {} });
  const hold = budget.hold();
  const db = client.db(fixture.db.databaseName);
  const sent = await commandsOf(() => readBucketState(db, bucketRule, "r_1", { budget: hold.plan() }));
  assert.deepEqual(sent.slice(0, 3), ["find", "aggregate", "find"], "not small, the size, then the bucket");
  assert.equal(held.at(-1), BSON.calculateObjectSize(large!));
  hold.release();
});

void test("in a transaction, a document whose size says it is missing is not read again", async () => {
  const budget = new MemoryBudget(DEFAULT_BUDGET);
  const other = budget.hold();
  await other.plan().admit(1);
  const hold = budget.hold();
  const db = client.db(fixture.db.databaseName);
  const session = client.startSession();
  try {
    let state: Awaited<ReturnType<typeof readBucketState>> | undefined;
    const sent = await commandsOf(() =>
      session.withTransaction(async () => {
        state = await readBucketState(db, bucketRule, "missing_1", { budget: hold.plan(), session });
      }),
    );
    assert.equal(state, null);
    assert.deepEqual(sent.slice(0, 2), ["find", "aggregate"], "the small read, then the size");
    assert.equal(sent.filter((name) => name === "find").length, 1, "nothing read once the size is 0");
  } finally {
    await session.endSession();
    hold.release();
    other.release();
  }
});

for (const { name, collection, document, readAs = document, read } of cases) {
  void test(`reading ${name} alone while another correction holds part of the budget is one command`, async () => {
    // The same document as the test above reads: the file's tests share one database.
    await fixture.db.collection(collection).replaceOne({ _id: document._id }, document, { upsert: true });
    const held: number[] = [];
    const budget = new MemoryBudget(DEFAULT_BUDGET, { held: (bytes) => held.push(bytes), waited: () => {} });
    const other = budget.hold();
    await other.plan().admit(1);
    const hold = budget.hold();
    const sent = await commandsOf(() => read({ budget: hold.plan() }, client.db(fixture.db.databaseName)));
    assert.equal(sent.length, 1, `one read, its size not asked: ${sent.join(", ")}`);
    assert.equal(held.at(-1), 1 + BSON.calculateObjectSize(readAs), "admitted beside the other's byte");
    hold.release();
    other.release();
  });
}
