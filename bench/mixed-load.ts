// The load the mixed-backlog benchmark replays (issue 35): writes to all three of the seed's
// collections, 3 sales pushes : 1 trade push : 1 product update, every fifth write a trigger
// on a document of its own that needs a correction, and how to tell that every one was made.
import type { Db, Document } from "mongodb";
import { waitUntil } from "../src/cli/wait-until.js";
import { users } from "../test/support/harness.js";

/** What a trigger does: push a book, a bucket or a product past its threshold, delete an embedded review, insert a loose trade. */
export type TriggerKind = "sale" | "trade" | "review" | "review-delete" | "loose-trade";

const THRESHOLD = 10;
const BOOK_THRESHOLD = 50;
const WRITERS = 16;
const EPOCH = Date.UTC(2024, 0, 1);

type Book = { _id: number; customers_purchased: string[] };
type Bucket = { _id: string; customerId: string; history: Document[]; count: number };
type Product = { _id: number; reviews: Document[]; price?: number };

const books = (db: Db) => db.collection<Book>("sales");
const buckets = (db: Db) => db.collection<Bucket>("trades");
const products = (db: Db) => db.collection<Product>("products");

const day = (i: number) => new Date(EPOCH + i * 86_400_000);

function trade(i: number): Document {
  return { type: "buy", quantity: 1, date: new Date(EPOCH + i * 1000) };
}

/** Products whose reviews a delete trigger deletes; those below it get a pushed review. */
const DELETED_PRODUCT_BASE = 500_000;
/** Products that plain writes update (a price, never a review). */
const PLAIN_PRODUCT_BASE = 1_000_000;

const reviewId = (product: number, i: number) => product * 100 + i;

/** Review `i` of a product: the larger `i`, the newer. */
function review(product: number, i: number): Document {
  return {
    review_id: reviewId(product, i),
    review_author: `author${i}`,
    review_text: `text ${i}`,
    published_date: day(i),
  };
}

/** Ten digits of whole seconds, as a bucket's `_id` names them. */
function stamp(i: number): string {
  return String(Math.floor((EPOCH + i * 1000) / 1000)).padStart(10, "0");
}

export const fullBucketId = (id: number) => `t${id}_${stamp(0)}`;
const plainBucketId = (id: number) => `p${id}_${stamp(0)}`;

/** The documents the triggers of one kind write to, `count` of them, 1,000 per command. */
async function insertTriggerDocuments(db: Db, kind: TriggerKind, count: number): Promise<void> {
  for (let first = 0; first < count; first += 1000) {
    const ids = Array.from({ length: Math.min(1000, count - first) }, (_, i) => first + i);
    await insertTriggerSlice(db, kind, ids);
  }
}

async function insertTriggerSlice(db: Db, kind: TriggerKind, ids: number[]): Promise<void> {
  switch (kind) {
    case "sale": {
      const docs = ids.map((id) => ({ _id: 100_000 + id, customers_purchased: users(0, BOOK_THRESHOLD) }));
      await books(db).insertMany(docs);
      return;
    }
    case "trade": {
      const history = Array.from({ length: THRESHOLD }, (_, i) => trade(i));
      const bucketDocs = ids.map((id) => ({
        _id: fullBucketId(id),
        customerId: `t${id}`,
        history,
        count: THRESHOLD,
      }));
      await buckets(db).insertMany(bucketDocs);
      return;
    }
    case "loose-trade":
      return;
    case "review":
      return insertReviewedProducts(db, ids, THRESHOLD);
    case "review-delete":
      // The deleted review's place is taken by an eleventh, older one in the full set.
      return insertReviewedProducts(
        db,
        ids.map((id) => DELETED_PRODUCT_BASE + id),
        THRESHOLD + 1,
      );
  }
}

/** Products embedding the newest ten of their `reviews` reviews, all of which are in the full set. */
async function insertReviewedProducts(db: Db, ids: number[], reviews: number): Promise<void> {
  const embedded = (id: number) => Array.from({ length: THRESHOLD }, (_, i) => review(id, reviews - i));
  const productDocs = ids.map((id) => ({ _id: id, name: `product ${id}`, reviews: embedded(id) }));
  await products(db).insertMany(productDocs);
  const fullSet = ids.flatMap((id) =>
    Array.from({ length: reviews }, (_, i) => ({ ...review(id, i + 1), product_id: id })),
  );
  await db.collection("reviews").insertMany(fullSet);
}

/** The documents plain writes go to: small books, open buckets and products that no write breaks. */
async function insertPlainDocuments(db: Db, plainDocuments: number): Promise<void> {
  const ids = Array.from({ length: plainDocuments }, (_, i) => i);
  const docs = ids.map((id) => ({ _id: id, customers_purchased: [] }));
  await books(db).insertMany(docs);
  const bucketDocs = ids.map((id) => ({
    _id: plainBucketId(id),
    customerId: `p${id}`,
    history: [],
    count: 0,
  }));
  await buckets(db).insertMany(bucketDocs);
  const productDocs = ids.map((id) => ({
    _id: PLAIN_PRODUCT_BASE + id,
    name: `plain ${id}`,
    price: 0,
    reviews: [],
  }));
  await products(db).insertMany(productDocs);
}

/** The book whose correction ends a drain: the last write of the backlog. */
export const SENTINEL_BOOK = 99_999;

/** Every document the backlog writes to, before any sidecar runs. */
export async function insertMixedDocuments(
  db: Db,
  triggers: Map<TriggerKind, number>,
  plainDocuments = plainDocumentsFor(0),
): Promise<void> {
  await insertPlainDocuments(db, plainDocuments);
  for (const [kind, count] of triggers) await insertTriggerDocuments(db, kind, count);
  await books(db).insertOne({ _id: SENTINEL_BOOK, customers_purchased: users(0, BOOK_THRESHOLD) });
}

/** How many triggers of each kind `events` writes make when the triggers take turns as `cycle`. */
export function triggerCounts(events: number, triggerEvery: number, cycle: readonly TriggerKind[]) {
  const counts = new Map<TriggerKind, number>(cycle.map((kind) => [kind, 0]));
  const triggers = Math.floor(events / triggerEvery);
  for (let i = 0; i < triggers; i++) {
    const kind = cycle[i % cycle.length]!;
    counts.set(kind, counts.get(kind)! + 1);
  }
  return counts;
}

/** The plain writes' turns: 3 sales pushes, 1 trade push, 1 product update. */
const PLAIN_CYCLE = ["sale", "sale", "sale", "trade", "product"] as const;

/**
 * The documents of each kind that `plainWrites` plain writes (those needing no correction)
 * spread over: at least 2,000, and enough that none passes its threshold (a bucket gets at
 * most 8 trades of its 10, a book 24 purchasers of its 50).
 */
export function plainDocumentsFor(plainWrites: number): number {
  return Math.max(2_000, Math.ceil(plainWrites / (PLAIN_CYCLE.length * 8)));
}

/**
 * `events` writes, WRITERS at a time: every `triggerEvery`-th a trigger, their kinds taking
 * turns as `cycle`, the others plain writes that need no correction (each small book, bucket
 * and product gets few enough to stay within its threshold).
 */
export async function writeMixedBacklog(
  db: Db,
  events: number,
  triggerEvery: number,
  cycle: readonly TriggerKind[],
  plainDocuments = plainDocumentsFor(0),
): Promise<void> {
  const nextTrigger = new Map<TriggerKind, number>();
  let plain = 0;
  let triggers = 0;
  const writeOne = (i: number) => {
    if (i % triggerEvery !== triggerEvery - 1) return writePlain(db, plain++, plainDocuments);
    const kind = cycle[triggers++ % cycle.length]!;
    const id = nextTrigger.get(kind) ?? 0;
    nextTrigger.set(kind, id + 1);
    return writeTrigger(db, kind, id);
  };
  let next = 0;
  const worker = async () => {
    while (next < events) await writeOne(next++);
  };
  await Promise.all(Array.from({ length: WRITERS }, worker));
  await books(db).updateOne({ _id: SENTINEL_BOOK }, { $push: { customers_purchased: "user50" } });
}

function writePlain(db: Db, i: number, plainDocuments: number): Promise<unknown> {
  const kind = PLAIN_CYCLE[i % PLAIN_CYCLE.length]!;
  const id = Math.floor(i / PLAIN_CYCLE.length) % plainDocuments;
  if (kind === "sale") return books(db).updateOne({ _id: id }, { $push: { customers_purchased: "x" } });
  if (kind === "trade")
    return buckets(db).updateOne(
      { _id: plainBucketId(id) },
      { $push: { history: trade(i) }, $inc: { count: 1 } },
    );
  return products(db).updateOne({ _id: PLAIN_PRODUCT_BASE + id }, { $inc: { price: 1 } });
}

export function writeTrigger(db: Db, kind: TriggerKind, id: number): Promise<unknown> {
  switch (kind) {
    case "sale":
      return books(db).updateOne({ _id: 100_000 + id }, { $push: { customers_purchased: "user50" } });
    case "trade":
      return buckets(db).updateOne(
        { _id: fullBucketId(id) },
        { $push: { history: trade(100) }, $inc: { count: 1 } },
      );
    case "review":
      return products(db).updateOne({ _id: id }, { $push: { reviews: review(id, 100) } });
    case "review-delete":
      return db
        .collection("reviews")
        .deleteOne({ review_id: reviewId(DELETED_PRODUCT_BASE + id, THRESHOLD + 1) });
    case "loose-trade":
      return db.collection("trades").insertOne({ customerId: `l${id}`, ...trade(id) });
  }
}

/** Whether every trigger's correction is made: scans, run once at the end of a drain. */
async function allCorrected(db: Db): Promise<boolean> {
  const broken = await Promise.all([
    books(db).countDocuments({ [`customers_purchased.${BOOK_THRESHOLD}`]: { $exists: true } }),
    buckets(db).countDocuments({ [`history.${THRESHOLD}`]: { $exists: true } }),
    buckets(db).countDocuments({ history: { $exists: false } }),
    products(db).countDocuments({ [`reviews.${THRESHOLD}`]: { $exists: true } }),
  ]);
  return broken.every((n) => n === 0);
}

/**
 * Waits until the sidecar has committed `expected` corrections (`committed`, read from its
 * metrics in the bench's process: polling the server would load it while it is measured; a
 * scan every few ms did, and corrections of products lag the sentinel's), then checks that
 * none is left.
 */
export async function waitForMixedCorrected(
  db: Db,
  committed: () => Promise<number>,
  expected: number,
  timeoutMs: number,
): Promise<void> {
  await waitUntil(async () => (await committed()) >= expected, {
    timeoutMs,
    intervalMs: 5,
    description: `${expected} corrections committed`,
  });
  if (!(await allCorrected(db)))
    throw new Error("corrections committed, but a trigger's document is uncorrected");
}

/**
 * Nothing lost or duplicated: every book pushed past its threshold has one overflow chunk,
 * every bucket pushed past it its 11 trades in two buckets, each loose trade is in a bucket,
 * each product embeds the newest ten of its reviews (the pushed one copied to the full set, a
 * deleted one nowhere) and the full set holds each review once.
 */
export async function verifyMixedCorrected(db: Db, triggers: Map<TriggerKind, number>): Promise<void> {
  const count = (kind: TriggerKind) => triggers.get(kind) ?? 0;
  const expect = (what: string, actual: number, expected: number) => {
    if (actual !== expected) throw new Error(`${what}: ${actual}, expected ${expected}`);
  };
  const extraSales = db.collection("extra_sales");
  expect("overflow chunks", await extraSales.countDocuments({ book_id: { $gte: 100_000 } }), count("sale"));
  expect(
    "split-off buckets",
    await buckets(db).countDocuments({ count: 1, customerId: /^t/ }),
    count("trade"),
  );
  expect("trades of the split buckets", await tradesOf(db, /^t/), count("trade") * (THRESHOLD + 1));
  expect("trades of loose customers", await tradesOf(db, /^l/), count("loose-trade"));
  const reviews = db.collection("reviews");
  const productsWithReviews = { product_id: { $lt: PLAIN_PRODUCT_BASE } };
  const fullSet = count("review") * (THRESHOLD + 1) + count("review-delete") * THRESHOLD;
  expect("reviews in the full set", await reviews.countDocuments(productsWithReviews), fullSet);
  const reviewed = products(db).find({ _id: { $lt: PLAIN_PRODUCT_BASE } });
  for await (const product of reviewed) {
    const id = product._id;
    const pushed = id < DELETED_PRODUCT_BASE;
    const newest = pushed ? [100, 10, 9, 8, 7, 6, 5, 4, 3, 2] : [10, 9, 8, 7, 6, 5, 4, 3, 2, 1];
    const expected = newest.map((i) => reviewId(id, i)).join(",");
    const embedded = (product.reviews as Document[]).map((entry) => Number(entry.review_id)).join(",");
    if (embedded !== expected) throw new Error(`product ${id} embeds ${embedded}, expected ${expected}`);
  }
}

async function tradesOf(db: Db, customers: RegExp): Promise<number> {
  const [sum] = await buckets(db)
    .aggregate([
      { $match: { customerId: customers } },
      { $group: { _id: null, n: { $sum: { $size: { $ifNull: ["$history", []] } } } } },
    ])
    .toArray();
  return Number(sum?.n ?? 0);
}
