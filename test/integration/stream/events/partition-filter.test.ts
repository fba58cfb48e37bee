// The server keeps, of the change stream, the events of a replica's partitions: every target
// an event names reaches the stream of the partition that target falls in, while each
// partition's stream gets only a share of the events. Writes of every kind the three seeds'
// rules watch: sources, numbered and unnumbered chunks, buckets, loose trades of keys of
// several types, products and reviews inserted, moved between products and deleted.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BSON, type Db, type Document, type Timestamp } from "mongodb";
import { configSchema, type Config } from "../../../../src/config/schema.js";
import { currentClusterTime } from "../../../../src/stream/position/cluster-time.js";
import { targetsForEvent, type ProjectedChangeEvent } from "../../../../src/stream/events/targets.js";
import { buildWatchPipeline, watchOptions } from "../../../../src/stream/events/watch-pipeline.js";
import type { OwnedPartitions } from "../../../../src/stream/partitions/partition-filter.js";
import { partitionOf } from "../../../../src/stream/partitions/hashed-key.js";
import { partitionOfTarget } from "../../../../src/stream/partitions/target-partition.js";
import { useTestDatabase } from "../../../support/mongo.js";

const PARTITIONS = 4;
const SENTINEL = "sentinel";
const { rules } = configSchema.parse({}) as Config;

const fixture = useTestDatabase("partition_filter", {
  setUp: async ({ db }) => {
    await db.createCollection("reviews", { changeStreamPreAndPostImages: { enabled: true } });
  },
});

const entries = (count: number, label: string) => Array.from({ length: count }, (_, i) => `${label}${i}`);
const trade = (customerId: unknown, n: number) => ({
  customerId,
  ticker: `T${n}`,
  date: new Date(1_700_000_000_000 + n),
});

/** A `$push` of `value` to `field`, typed for a collection of any documents. */
const push = (field: string, value: unknown): Document => ({ $push: { [field]: value } });

async function writeEveryKind(db: Db): Promise<void> {
  const books = [1, 2, 3, 4, 5, 6, 7, 8, BSON.Long.fromNumber(9), "ten"];
  for (const book of books) {
    await db.collection("sales").insertOne({ _id: book as never, customers_purchased: entries(51, "c") });
    await db.collection("sales").updateOne({ _id: book as never }, push("customers_purchased", "late"));
    await db.collection("extra_sales").insertOne({
      _id: { book_id: book, seq: 0 } as never,
      book_id: book,
      seq: 0,
      customers_purchased_extra: entries(1001, "x"),
    });
    await db
      .collection("extra_sales")
      .updateOne({ book_id: book, seq: { $exists: false } }, push("customers_purchased_extra", "seed"), {
        upsert: true,
      });
  }
  const customers = [
    1,
    2,
    3,
    new BSON.Int32(4),
    BSON.Long.fromNumber(5),
    6.5,
    "seven",
    new BSON.ObjectId(),
    9,
    10,
  ];
  for (const [n, customer] of customers.entries()) {
    await db.collection("trades").insertOne(trade(customer, n));
    await db.collection("trades").insertOne({
      _id: `k${n}_1700000000` as never,
      customerId: customer,
      count: 11,
      history: entries(11, "h"),
    });
    await db.collection("trades").insertOne({ customerId: customer, count: 11, history: entries(11, "h") });
  }
  for (const product of ["p1", "p2", "p3", "p4", 5, 6, 7, 8]) {
    await db.collection("products").insertOne({ _id: product as never, reviews: [] });
    await db
      .collection("products")
      .updateOne({ _id: product as never }, push("reviews", { $each: entries(11, "r") }));
    const { insertedId } = await db
      .collection("reviews")
      .insertOne({ review_id: `${String(product)}-r`, product_id: product });
    await db
      .collection("reviews")
      .updateOne({ _id: insertedId }, { $set: { product_id: `${String(product)}-moved` } });
    await db.collection("reviews").deleteOne({ _id: insertedId });
  }
  await db.createCollection(SENTINEL);
  await db.collection(SENTINEL).drop();
}

/** Events by resume token. */
type Events = Map<string, ProjectedChangeEvent>;

/** The events of the stream from `start` up to the sentinel's drop. */
async function eventsFrom(start: Timestamp, partitions?: OwnedPartitions): Promise<Events> {
  const stream = fixture.db.watch<Document, ProjectedChangeEvent>(
    buildWatchPipeline(rules, "full", [], partitions),
    {
      ...watchOptions(rules),
      startAtOperationTime: start,
    },
  );
  const events: Events = new Map();
  try {
    for (;;) {
      const event = await stream.next();
      if (event.operationType === "drop" && event.ns?.coll === SENTINEL) return events;
      events.set(JSON.stringify(event._id), event);
    }
  } finally {
    await stream.close();
  }
}

let everyKind: Promise<{ all: Events; byPartition: Events[] }> | undefined;

/** The writes of every kind, made once, and their events read whole and by each partition's stream. */
function eventsOfEveryKind(): Promise<{ all: Events; byPartition: Events[] }> {
  everyKind ??= (async () => {
    const start = await currentClusterTime(fixture.db);
    await writeEveryKind(fixture.db);
    const all = await eventsFrom(start);
    const byPartition = await Promise.all(
      Array.from({ length: PARTITIONS }, (_, p) => eventsFrom(start, { count: PARTITIONS, owned: [p] })),
    );
    return { all, byPartition };
  })();
  return everyKind;
}

void test("every target reaches its partition's stream, and each stream gets a share of the events", async () => {
  const { all, byPartition } = await eventsOfEveryKind();
  let targets = 0;
  for (const [token, event] of all) {
    for (const target of targetsForEvent(rules, event)) {
      targets++;
      const partition = partitionOfTarget(target, PARTITIONS);
      assert.ok(
        byPartition[partition]!.has(token),
        `${event.operationType} of ${event.ns?.coll} ${BSON.EJSON.stringify(target.id)} (${target.role}) missed partition ${partition}`,
      );
    }
  }
  assert.ok(targets > 100, `${targets} targets`);
  const received = byPartition.reduce((sum, events) => sum + events.size, 0);
  // An event reaches the partitions of each key it names; most name one or two.
  assert.ok(received < all.size * 2, `${received} events received by ${PARTITIONS} streams of ${all.size}`);
  for (const events of byPartition) assert.ok(events.size < all.size, `${events.size} of ${all.size}`);
});

void test("owning every partition, the stream is the one without partitions", () => {
  const owned = { count: 3, owned: [2, 0, 1] };
  assert.deepEqual(buildWatchPipeline(rules, "full", [], owned), buildWatchPipeline(rules));
});

/** `count` keys `label<i>` that do not hash into `partition`. */
function keysOutside(partition: number, label: string, count: number): string[] {
  const keys: string[] = [];
  for (let i = 0; keys.length < count; i++)
    if (partitionOf(`${label}${i}`, PARTITIONS) !== partition) keys.push(`${label}${i}`);
  return keys;
}

void test("a key an event does not carry sends it to no partition", async () => {
  // A bucket's update carries no post-image, so no customer; a review's delete no post-image
  // and no updated fields, so its product only in its pre-image. Null's partition is where a
  // missing key would hash.
  const nullPartition = partitionOf(null, PARTITIONS);
  const buckets = keysOutside(nullPartition, "bucket", 5);
  const reviews = keysOutside(nullPartition, "review", 5);
  const [product] = keysOutside(nullPartition, "product", 1);
  const trades = fixture.db.collection<{ _id: string }>("trades");
  const reviewed = fixture.db.collection<{ _id: string }>("reviews");
  await trades.insertMany(
    buckets.map((_id) => ({ _id, customerId: _id, count: 10, history: entries(10, "h") })),
  );
  await reviewed.insertMany(reviews.map((_id) => ({ _id, product_id: product })));
  const start = await currentClusterTime(fixture.db);
  for (const _id of buckets)
    await trades.updateOne({ _id }, { $push: { history: "h10" }, $inc: { count: 1 } });
  for (const _id of reviews) await reviewed.deleteOne({ _id });
  await fixture.db.createCollection(SENTINEL);
  await fixture.db.collection(SENTINEL).drop();
  const written = (events: Events) =>
    [...events.values()]
      .filter((event) => event.operationType === "update" || event.operationType === "delete")
      .map((event) => `${event.operationType} of ${event.ns?.coll}`);
  assert.equal(written(await eventsFrom(start)).length, buckets.length + reviews.length);
  assert.deepEqual(written(await eventsFrom(start, { count: PARTITIONS, owned: [nullPartition] })), []);
});
