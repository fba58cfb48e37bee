// Every read a correction plans from is answered from an index, without a blocking sort,
// and examines as many keys and documents for a document with a long history as for one
// with none: explain with executionStats proves it against the embedded server and mongod.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Document, MongoClient } from "mongodb";
import { readBucketState } from "../../../../src/patterns/bucket/reader.js";
import { readLooseEntryStates, type LooseKey } from "../../../../src/patterns/bucket/open-bucket-reader.js";
import { numbersByValue, numberValue } from "../../../../src/patterns/bson/bson-value.js";
import { readOutlierStates } from "../../../../src/patterns/outlier/reader.js";
import { readSubsetStates } from "../../../../src/patterns/subset/reader.js";
import { driverOf } from "../../../../src/patterns/registry.js";
import type { PatternRule } from "../../../../src/patterns/driver.js";
import { explainReads, type ExplainedRead } from "../../../support/explain.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { bucketRule, outlierRule, subsetRule, users } from "../../../unit/patterns/support/rules.js";

let monitored: MongoClient;
const fixture = useTestDatabase("correction_reads", {
  async setUp({ mongo, db }) {
    monitored = await mongo.newClient({ monitorCommands: true });
    for (const rule of [outlierRule, bucketRule, subsetRule] as PatternRule[])
      for (const index of driverOf(rule).collections.indexes(rule))
        await db.collection(index.collection).createIndex(index.keys, index.options ?? {});
  },
});

const db = () => monitored.db(fixture.db.databaseName);

function assertIndexed(reads: ExplainedRead[]): void {
  assert.ok(reads.length > 0);
  for (const read of reads) {
    assert.equal(read.stages.includes("SORT"), false, `${read.collection}: ${read.stages.join(" < ")}`);
    assert.equal(read.stages.includes("COLLSCAN"), false, `${read.collection}: ${read.stages.join(" < ")}`);
  }
}

/** What each read examined, in the order they were sent. */
const costs = (reads: ExplainedRead[]) => reads.map((r) => [r.collection, r.keysExamined, r.docsExamined]);

/** What each read's $lookup stages examined, and how many collection scans they made. */
const lookupCosts = (reads: ExplainedRead[]) =>
  reads.flatMap((r) => r.lookups.map((l) => [l.from, l.keysExamined, l.docsExamined, l.collectionScans]));

async function bookWithChunks(bookId: number, chunks: number): Promise<void> {
  await fixture.db.collection("sales").insertOne({ _id: bookId as never, customers_purchased: users(0, 60) });
  const docs: Document[] = [];
  for (let seq = 0; seq < chunks; seq++)
    docs.push({ _id: { book_id: bookId, seq }, book_id: bookId, seq, customers_purchased_extra: ["u"] });
  if (docs.length > 0) await fixture.db.collection("extra_sales").insertMany(docs);
}

void test("reading a book's last chunk examines the same two keys with 2 chunks as with 200", async () => {
  await bookWithChunks(1, 2);
  await bookWithChunks(2, 200);
  const small = await explainReads(monitored, db(), () => readOutlierStates(db(), outlierRule, [1]));
  const large = await explainReads(monitored, db(), () => readOutlierStates(db(), outlierRule, [2]));
  assertIndexed(large);
  assert.deepEqual(costs(large), costs(small));
  // The last chunk, and the one before it, to see whether the two share a sequence number.
  assert.deepEqual(lookupCosts(large), [["extra_sales", 2, 2, 0]]);
});

void test("reading several books and their last chunks is one command, costing the same for 150 chunks as for 2", async () => {
  const read = (ids: number[]) =>
    explainReads(monitored, db(), () => readOutlierStates(db(), outlierRule, ids));
  for (const [book, chunks] of [
    [3, 2],
    [4, 2],
    [5, 0],
    [7, 3],
    [8, 150],
    [9, 0],
  ] as const)
    await bookWithChunks(book, chunks);
  const states = await readOutlierStates(db(), outlierRule, [9, 8, 7, 10]);
  assert.deepEqual(
    // Read verbatim: numbers come as the driver's Int32 objects.
    states.map(
      (state) => state && [numberValue(state.source._id), numberValue(state.lastChunk?.sequence) ?? null],
    ),
    [[9, null], [8, 149], [7, 2], null],
  );
  const small = await read([5, 4, 3, 6]);
  const large = await read([9, 8, 7, 10]);
  assert.equal(large.length, 1);
  assertIndexed(large);
  assert.deepEqual(costs(large), costs(small));
  assert.deepEqual(lookupCosts(large), lookupCosts(small));
  const [lookup] = large[0]!.lookups;
  assert.equal(lookup?.collectionScans, 0);
  // At most two keys for each source found (one with no chunk may still examine the next key).
  assert.ok(lookup.keysExamined <= 5, `keys examined ${lookup.keysExamined}`);
});

async function customerWithBuckets(customer: string, buckets: number): Promise<string> {
  const docs: Document[] = [];
  for (let i = 0; i < buckets; i++)
    docs.push({
      _id: `${customer}_${1_600_000_000 + i}`,
      customerId: customer,
      count: 1,
      history: [{ date: new Date() }],
    });
  await fixture.db.collection("trades").insertMany(docs);
  // A bucket of 20 trades whose second ten start in a second that a bucket already takes,
  // with one suffixed bucket of that second.
  const taken = new Date((1_600_000_000 + buckets - 1) * 1000);
  await fixture.db.collection("trades").insertOne({
    _id: `${customer}_${1_600_000_000 + buckets - 1}_000001` as never,
    customerId: customer,
    count: 1,
    history: [{ date: taken }],
  });
  const id = `${customer}_0`;
  const history = Array.from({ length: 20 }, () => ({ date: taken }));
  await fixture.db
    .collection("trades")
    .insertOne({ _id: id as never, customerId: customer, count: 20, history });
  return id;
}

void test("planning a bucket split examines as much with 40 buckets of the customer as with 2,000", async () => {
  const few = await customerWithBuckets("few", 40);
  const many = await customerWithBuckets("many", 2000);
  const small = await explainReads(monitored, db(), () => readBucketState(db(), bucketRule, few));
  const large = await explainReads(monitored, db(), () => readBucketState(db(), bucketRule, many));
  assertIndexed(large);
  assert.deepEqual(costs(large), costs(small));
  for (const read of large) assert.ok(read.keysExamined <= 2 && read.docsExamined <= 2, JSON.stringify(read));
  const state = await readBucketState(fixture.db, bucketRule, many);
  assert.deepEqual([...(state?.takenIds ?? [])].sort(), ["many_1600001999", "many_1600001999_000001"]);
});

async function productWithReviews(productId: number, reviews: number): Promise<void> {
  const docs = Array.from({ length: reviews }, (_, i) => ({
    product_id: productId,
    review_id: i,
    published_date: new Date(1_600_000_000_000 + i * 1000),
  }));
  await fixture.db.collection("reviews").insertMany(docs);
  const embedded = docs.slice(-3).map(({ product_id: _p, ...review }) => review);
  await fixture.db.collection("products").insertOne({ _id: productId as never, reviews: embedded });
}

void test("reading a product's full set examines as much with 12 reviews as with 500", async () => {
  await productWithReviews(1, 12);
  await productWithReviews(2, 500);
  const read = (sourceId: number) =>
    readSubsetStates(db(), subsetRule, [{ sourceId }], { stateCollection: "state" });
  const small = await explainReads(monitored, db(), () => read(1));
  const large = await explainReads(monitored, db(), () => read(2));
  assertIndexed(large);
  assert.deepEqual(costs(large), costs(small));
  for (const read of large) assert.ok(read.docsExamined <= subsetRule.threshold, JSON.stringify(read));
});

void test("reading 20 products at once finds the older review each embeds, and only its own, in one query", async () => {
  const ids = Array.from({ length: 20 }, (_, i) => 101 + i);
  for (const id of ids) {
    await productWithReviews(id, 12);
    // Review 0, older than its 10 newest, and review 99, in no product's full set.
    await fixture.db
      .collection<{ _id: number }>("products")
      .updateOne({ _id: id }, { $push: { reviews: { $each: [{ review_id: 0 }, { review_id: 99 }] } } });
  }
  const read = () =>
    readSubsetStates(
      db(),
      subsetRule,
      ids.map((sourceId) => ({ sourceId })),
      { stateCollection: "state" },
    );
  const states = await read();
  const reads = await explainReads(monitored, db(), read);
  assertIndexed(reads);
  // The products with their newest, then the older entries they embed: one `$or` branch each.
  assert.deepEqual(
    reads.map((r) => r.command),
    ["aggregate", "find"],
  );
  // Each product's two entries looked for, and review 0 found: no source's entries are
  // looked for under another.
  assert.ok(reads[1]!.keysExamined <= 2 * ids.length, JSON.stringify(reads[1]));
  for (const [i, state] of states.entries()) {
    const held = state!.fullSet.map((doc) => [numberValue(doc.product_id), numberValue(doc.review_id)]);
    assert.equal(held.length, subsetRule.threshold + 1, `product ${ids[i]}`);
    assert.ok(held.every(([product]) => product === ids[i]));
    assert.deepEqual(
      held.filter(([, review]) => review === 0 || review === 99),
      [[ids[i], 0]],
    );
  }
});

void test("a batch's older reviews are found under their own product, ids that look like numbers and prefix each other too", async () => {
  // Each product embeds an old review under a number and under a string that prints the same;
  // only one of them is in its full set, and product "7" holds the other type.
  const products: [unknown, unknown][] = [
    [7, 1],
    ["7", "1"],
    [70, "10"],
  ];
  const date = (i: number) => new Date(1_600_000_000_000 + i * 1000);
  for (const [productId, held] of products) {
    const newer = Array.from({ length: subsetRule.threshold }, (_, i) => ({
      product_id: productId,
      review_id: 100 + i,
      published_date: date(100 + i),
    }));
    await fixture.db
      .collection("reviews")
      .insertMany([{ product_id: productId, review_id: held, published_date: date(1) }, ...newer]);
    const lookalike = typeof held === "number" ? String(held) : Number(held);
    await fixture.db.collection("products").insertOne({
      _id: productId as never,
      reviews: [held, lookalike].map((review_id) => ({ review_id, published_date: date(1) })),
    });
  }
  const states = await readSubsetStates(
    db(),
    subsetRule,
    products.map(([sourceId]) => ({ sourceId })),
    { stateCollection: "state" },
  );
  // The newer ones are numbers from 100 on; numbers are compared by value, as read verbatim.
  const isNewer = (id: unknown) => (numberValue(id) ?? -1) >= 100;
  const older = states.map((state) =>
    state!.fullSet
      .filter((doc) => !isNewer(doc.review_id))
      .map((doc) => [numbersByValue(doc.product_id), numbersByValue(doc.review_id)]),
  );
  assert.deepEqual(
    older,
    products.map((pair) => [pair]),
  );
  for (const state of states) assert.equal(state!.fullSet.length, subsetRule.threshold + 1);
});

/** `customers` with one loose trade each and an open bucket, beside `others` customers' buckets. */
async function looseTradesBeside(prefix: string, customers: number, others: number): Promise<LooseKey[]> {
  const trades = fixture.db.collection("trades");
  const date = new Date(1_600_000_000_000);
  const keys = Array.from({ length: customers }, (_, i) => `${prefix}${i}`);
  await trades.insertMany([
    ...keys.map((key) => ({ customerId: key, date })),
    ...keys.map((key) => ({ _id: `${key}_1600000000`, customerId: key, count: 1, history: [{ date }] })),
    ...Array.from({ length: others }, (_, i) => ({
      _id: `${prefix}other${i}_1600000000`,
      customerId: `${prefix}other${i}`,
      count: 1,
      history: [{ date }],
    })),
  ] as Document[]);
  return keys.map((key) => ({ text: key, value: key }));
}

void test("folding several customers' loose trades examines as much beside 2,000 other buckets as beside 20", async () => {
  const few = await looseTradesBeside("f", 16, 20);
  const many = await looseTradesBeside("m", 16, 2_000);
  const read = (keys: LooseKey[]) => () => readLooseEntryStates(db(), bucketRule, keys);
  const small = await explainReads(monitored, db(), read(few));
  const large = await explainReads(monitored, db(), read(many));
  assert.deepEqual(costs(large), costs(small));
  for (const explained of large) assert.ok(explained.docsExamined <= 32, JSON.stringify(explained));
  const states = await readLooseEntryStates(fixture.db, bucketRule, many);
  assert.deepEqual(
    states.map((state) => state.openBucket?._id),
    many.map((key) => `${key.text}_1600000000`),
  );
});

void test("a batch's keys each take their newest open bucket, keys that look like numbers and prefix each other too", async () => {
  const date = new Date(1_600_000_000_000);
  const bucket = (_id: string, customerId: unknown, count: number) => ({
    _id,
    customerId,
    count,
    history: Array.from({ length: count }, () => ({ date })),
  });
  const keys = [7, 70, 700];
  await fixture.db.collection("trades").insertMany([
    ...keys.map((key) => ({ customerId: key, date })),
    ...keys.flatMap((key) => [
      bucket(`${key}_1600000000`, key, 1),
      bucket(`${key}_1600000005`, key, 2),
      // A suffixed bucket of the same second: the newest open one.
      bucket(`${key}_1600000005_000001`, key, 1),
      // Newer, but full: not open.
      bucket(`${key}_1600000009`, key, 10),
      // Newer and open, but the string customer that prints as the number does: not the key's.
      bucket(`${key}_1600000007`, String(key), 1),
    ]),
  ] as Document[]);
  const looseKeys = keys.map((key) => ({ text: String(key), value: key }));
  const states = await readLooseEntryStates(fixture.db, bucketRule, looseKeys);
  assert.deepEqual(
    states.map((state) => state.openBucket?._id),
    keys.map((key) => `${key}_1600000005_000001`),
  );
  assert.deepEqual(
    states.map((state) => [...state.takenIds].sort()),
    keys.map((key) => ["0", "5", "5_000001", "7", "9"].map((second) => `${key}_160000000${second}`)),
  );
});
