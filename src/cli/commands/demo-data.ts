// The demo's data: the seeds' example documents, a naive application's writes, and a
// summary that says whether each example has its pattern's shape.
import type { Db, Document } from "mongodb";

interface Book {
  _id: number;
  customers_purchased: string[];
}
interface Bucket {
  _id: string;
  count: number;
  history: Document[];
}
interface Product {
  _id: number;
  reviews: Document[];
}

const BOOK_ID = 1;
const PRODUCT_ID = 1;
const FIRST_BUCKET = "123_1698349623";

function user(n: number): string {
  return `user${String(n).padStart(2, "0")}`;
}

function review(id: number): Document {
  return {
    review_id: id,
    review_author: `reader${id}`,
    review_text: `Review number ${id}.`,
    published_date: new Date(Date.UTC(2019, 0, 1) + id * 86_400_000),
  };
}

export async function loadSeedExamples(db: Db): Promise<void> {
  await db.collection("sales").insertOne({
    _id: BOOK_ID as never,
    title: "Invisible Cities",
    year: 1972,
    author: "Italo Calvino",
    customers_purchased: [user(0), user(1), user(2)],
  });
  await db.collection("trades").insertOne({
    _id: FIRST_BUCKET as never,
    customerId: 123,
    count: 2,
    history: [
      { type: "buy", ticker: "MDB", qty: 419, date: new Date("2023-10-26T15:47:03.434Z") },
      { type: "sell", ticker: "MDB", qty: 29, date: new Date("2023-10-30T09:32:57.765Z") },
    ],
  });
  await db.collection("products").insertOne({
    _id: PRODUCT_ID as never,
    name: "Super Widget",
    description: "This is the most useful item in your toolbox.",
    price: { value: 119.99, currency: "USD" },
    reviews: [review(2), review(1)],
  });
}

const BUYERS_PER_ROUND = 117;
const TRADES_PER_ROUND = 23;
const REVIEWS_PER_ROUND = 13;
const SEED_REVIEWS = 2;

/**
 * What the seeds warn against: pushing to the source documents with no threshold logic.
 * Each round (0, 1, ...) pushes new buyers, trades and reviews after those of earlier rounds.
 */
export async function pushPastThresholds(db: Db, round: number): Promise<void> {
  const buyers = Array.from({ length: BUYERS_PER_ROUND }, (_, i) => user(3 + round * BUYERS_PER_ROUND + i));
  await db
    .collection<Book>("sales")
    .updateOne({ _id: BOOK_ID }, { $push: { customers_purchased: { $each: buyers } } });
  const firstTrade = round * TRADES_PER_ROUND;
  const trades = Array.from({ length: TRADES_PER_ROUND }, (_, i) => ({
    type: i % 2 ? "sell" : "buy",
    ticker: "MSFT",
    qty: 10 + i,
    date: new Date(Date.UTC(2023, 10, 2, 11, 43, 10) + (firstTrade + i) * 3_600_000),
  }));
  // Into the newest bucket, as a naive application that knows no bucket size would.
  const [newest] = await db.collection<Bucket>("trades").find({}).sort({ _id: -1 }).limit(1).toArray();
  await db
    .collection<Bucket>("trades")
    .updateOne(
      { _id: newest?._id ?? FIRST_BUCKET },
      { $push: { history: { $each: trades } }, $inc: { count: trades.length } },
    );
  const firstReview = SEED_REVIEWS + 1 + round * REVIEWS_PER_ROUND;
  const reviews = Array.from({ length: REVIEWS_PER_ROUND }, (_, i) => review(firstReview + i)).reverse();
  await db
    .collection<Product>("products")
    .updateOne({ _id: PRODUCT_ID }, { $push: { reviews: { $each: reviews, $position: 0 } } });
}

export interface DemoSummary {
  text: string;
  inShape: boolean;
}

function length(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

/** The documents as the seeds' readers see them; in shape once `rounds` rounds of pushes are corrected. */
export async function summarize(db: Db, rounds: number): Promise<DemoSummary> {
  const book = await db.collection("sales").findOne({ _id: BOOK_ID as never });
  const extras = await db.collection("extra_sales").find({ book_id: BOOK_ID }).toArray();
  const extraCount = extras.reduce((sum, doc) => sum + length(doc.customers_purchased_extra), 0);
  const buckets = await db
    .collection("trades")
    .find({ _id: /^123_/ } as never)
    .sort({ _id: 1 })
    .toArray();
  const product = await db.collection("products").findOne({ _id: PRODUCT_ID as never });
  const fullSet = await db.collection("reviews").countDocuments({ product_id: PRODUCT_ID });
  const bookOk = length(book?.customers_purchased) <= 50;
  const bucketsOk = buckets.every(
    (bucket) => length(bucket.history) <= 10 && bucket.count === length(bucket.history),
  );
  const productOk = length(product?.reviews) <= 10 && fullSet === SEED_REVIEWS + rounds * REVIEWS_PER_ROUND;
  const lines = [
    `  sales ${BOOK_ID}: ${length(book?.customers_purchased)} buyers embedded, has_extras ${book?.has_extras === true}; ` +
      `extra_sales: ${extraCount} buyers in ${extras.length} document(s)`,
    `  trades of customer 123: ${buckets.map((b) => `${String(b._id)} (${length(b.history)})`).join(", ")}`,
    `  products ${PRODUCT_ID}: ${length(product?.reviews)} reviews embedded; reviews collection: ${fullSet}`,
  ];
  return { text: lines.join("\n"), inShape: bookOk && bucketsOk && productOk };
}
