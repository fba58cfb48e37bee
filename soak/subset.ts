// The subset pattern under load: per product, one application pushes reviews into the
// embedded array, another inserts them straight into the full set, and a third deletes
// reviews from the full set (which must then leave the product too). Dates come from a
// small range, so ties (ranked by review_id) keep changing which ten are the newest.
import type { Db, Document } from "mongodb";
import { review, type Product } from "../test/support/harness.js";
import type { Prng } from "./prng.js";
import { exactlyOnce, nextBatch, writeUnlessTooLarge, type Workload, type Writer } from "./workload.js";

const THRESHOLD = 10;
const PRODUCTS = [1, 2];
/** Review ids of the inserting application start here; the pushing one's start at 1. */
const INSERTED_IDS_FROM = 1_000_000;
const DAY = 86_400_000;
/** A review in a large batch (nextBatch): a few hundred of them make ~14 MiB. */
const REVIEW_BYTES = 45_000;

type Ledger = Map<number, Document[]>;
/** Per product, the review ids the deleting application deleted from the full set. */
type Deleted = Map<number, Set<number>>;

function reviewWriter(
  db: Db,
  productId: number,
  style: "push" | "insert",
  prng: Prng,
  ledger: Ledger,
): Writer {
  let next = style === "push" ? 1 : INSERTED_IDS_FROM;
  const publishedDate = () => new Date(Date.UTC(2019, 1, 1) + prng.int(0, 30) * DAY);
  return {
    name: `${style} product ${productId}`,
    async writeOnce() {
      if (style === "insert") {
        const written = review(next++, publishedDate());
        ledger.get(productId)!.push(written);
        await db.collection("reviews").insertOne({ ...written, product_id: productId });
        return 1;
      }
      const batchOf = nextBatch(prng, REVIEW_BYTES);
      const { length, element } = batchOf;
      const written = Array.from({ length }, () => review(next++, publishedDate()));
      const batch = written.map((entry) => ({ ...entry, review_text: element(entry.review_text as string) }));
      const push = () =>
        db
          .collection<Product>("products")
          .updateOne({ _id: productId }, { $push: { reviews: { $each: batch, $position: 0 } } });
      if (!(await writeUnlessTooLarge(batchOf, push))) return 0;
      ledger.get(productId)!.push(...written);
      return length;
    },
  };
}

// Deletes, about every other turn, a review written earlier, once it is in the full set (one
// pushed and not yet copied is left for a later turn): the delete must reach the product.
function reviewDeleter(db: Db, productId: number, prng: Prng, ledger: Ledger, deleted: Deleted): Writer {
  const gone = deleted.get(productId)!;
  return {
    name: `delete from product ${productId}`,
    async writeOnce() {
      const candidates = ledger.get(productId)!.filter((written) => !gone.has(written.review_id as number));
      if (candidates.length === 0 || prng.int(0, 1) === 0) return 0;
      const reviewId = prng.pick(candidates).review_id as number;
      const { deletedCount } = await db
        .collection("reviews")
        .deleteOne({ product_id: productId, review_id: reviewId });
      if (deletedCount === 1) gone.add(reviewId);
      return deletedCount;
    },
  };
}

// The subset rule's ranking: newest published_date first, equal dates by review_id, descending.
function newestFirst(a: Document, b: Document): number {
  const byDate = (b.published_date as Date).getTime() - (a.published_date as Date).getTime();
  return byDate !== 0 ? byDate : (b.review_id as number) - (a.review_id as number);
}

async function productViolations(
  db: Db,
  productId: number,
  written: Document[],
  gone: Set<number>,
): Promise<string[]> {
  const product = await db.collection<Product>("products").findOne({ _id: productId });
  const fullSet = await db.collection("reviews").find({ product_id: productId }).toArray();
  const ids = (reviews: Document[]) => reviews.map((entry) => String(entry.review_id));
  const surviving = written.filter((entry) => !gone.has(entry.review_id as number));
  const problems = exactlyOnce(`product ${productId}'s full set`, ids(surviving), ids(fullSet));
  const newest = ids([...surviving].sort(newestFirst).slice(0, THRESHOLD));
  const embedded = Array.isArray(product?.reviews) ? ids(product.reviews) : [];
  if (embedded.join() !== newest.join())
    problems.push(
      `product ${productId}: embeds [${embedded.join()}], the ${THRESHOLD} newest are [${newest.join()}]`,
    );
  return problems;
}

export function subsetWorkload(): Workload {
  const ledger: Ledger = new Map(PRODUCTS.map((productId) => [productId, []]));
  const deleted: Deleted = new Map(PRODUCTS.map((productId) => [productId, new Set()]));
  return {
    async setUp(db) {
      await db
        .collection<Product>("products")
        .insertMany(PRODUCTS.map((_id) => ({ _id, name: `Product ${_id}`, reviews: [] })));
    },
    writers(db, prng) {
      return PRODUCTS.flatMap((productId) => [
        reviewWriter(db, productId, "push", prng.fork(productId), ledger),
        reviewWriter(db, productId, "insert", prng.fork(100 + productId), ledger),
        reviewDeleter(db, productId, prng.fork(200 + productId), ledger, deleted),
      ]);
    },
    async violations(db) {
      const problems: string[] = [];
      for (const [productId, written] of ledger)
        problems.push(...(await productViolations(db, productId, written, deleted.get(productId)!)));
      return problems;
    },
  };
}
