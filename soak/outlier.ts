// The outlier pattern under load: books written by the seed's application logic (push to
// sales until it holds more than 50, then set has_extras and upsert into extra_sales by
// book_id), books written by a naive application (everything pushed to sales), and books
// written by both at once. Each purchase is a unique string naming its book and writer.
import type { Db, Document } from "mongodb";
import type { Prng } from "./prng.js";
import {
  exactlyOnce,
  inOrder,
  nextBatch,
  writeUnlessTooLarge,
  type Workload,
  type Writer,
} from "./workload.js";

const THRESHOLD = 50;
/** Small, so that books span several chunks and overfilled chunks get split. */
export const CHUNK_SIZE = 25;

/** A purchaser in a large batch (nextBatch): a few thousand of them make ~14 MiB. */
const PURCHASER_BYTES = 2800;

const SEED_BOOKS = [1, 2];
const NAIVE_BOOKS = [3, 4];
const MIXED_BOOKS = [5, 6];

type Ledger = Map<string, string[]>;

interface Book {
  _id: number;
  title: string;
  customers_purchased: string[];
  has_extras?: boolean;
}

interface Chunk {
  book_id: number;
  seq?: number;
  customers_purchased_extra: string[];
}

const sales = (db: Db) => db.collection<Book>("sales");
const extraSales = (db: Db) => db.collection<Chunk>("extra_sales");

function seedWriter(db: Db, bookId: number, ledger: Ledger): Writer {
  const name = `seed-app book ${bookId}`;
  const written: string[] = [];
  ledger.set(name, written);
  return {
    name,
    async writeOnce() {
      const purchase = `b${bookId}-seed-${written.length}`;
      written.push(purchase);
      // The push is conditional on the flag in the same update: no gap between reading it and writing.
      const book = await sales(db).findOneAndUpdate(
        { _id: bookId, has_extras: { $ne: true } },
        { $push: { customers_purchased: purchase } },
        { returnDocument: "after" },
      );
      if (book === null) {
        await extraSales(db).updateOne(
          { book_id: bookId },
          { $push: { customers_purchased_extra: purchase } },
          { upsert: true },
        );
      } else if ((book.customers_purchased as unknown[]).length > THRESHOLD) {
        await sales(db).updateOne({ _id: bookId }, { $set: { has_extras: true } });
      }
      return 1;
    },
  };
}

function naiveWriter(db: Db, bookId: number, prng: Prng, ledger: Ledger): Writer {
  const name = `naive book ${bookId}`;
  const written: string[] = [];
  ledger.set(name, written);
  return {
    name,
    async writeOnce() {
      const next = nextBatch(prng, PURCHASER_BYTES);
      const { length, element } = next;
      const batch = Array.from({ length }, (_, i) => element(`b${bookId}-naive-${written.length + i}`));
      const push = () =>
        sales(db).updateOne({ _id: bookId }, { $push: { customers_purchased: { $each: batch } } });
      if (!(await writeUnlessTooLarge(next, push))) return 0;
      written.push(...batch);
      return batch.length;
    },
  };
}

/** The seed's "all purchasers of a book": sales' array, then the chunks by seq. */
async function purchasers(db: Db, bookId: number): Promise<{ book: Document | null; chunks: Document[] }> {
  const book = await sales(db).findOne({ _id: bookId });
  const chunks = await extraSales(db).find({ book_id: bookId }).sort({ seq: 1 }).toArray();
  return { book, chunks };
}

function shapeViolations(bookId: number, book: Document | null, chunks: Document[]): string[] {
  const problems: string[] = [];
  const embedded = book?.customers_purchased as unknown[] | undefined;
  if (!Array.isArray(embedded) || embedded.length > THRESHOLD)
    problems.push(`book ${bookId}: sales holds ${String(embedded?.length)} purchasers, over ${THRESHOLD}`);
  if (chunks.length > 0 && book?.has_extras !== true)
    problems.push(`book ${bookId}: has extra_sales but has_extras is not true`);
  for (const chunk of chunks) {
    const size = (chunk.customers_purchased_extra as unknown[]).length;
    if (size > CHUNK_SIZE)
      problems.push(`book ${bookId}: chunk seq ${chunk.seq} holds ${size}, over ${CHUNK_SIZE}`);
  }
  return problems;
}

export function outlierWorkload(): Workload {
  const ledger: Ledger = new Map();
  const booksWritten = (bookId: number) =>
    [...ledger].filter(([name]) => name.endsWith(` book ${bookId}`)).map(([, written]) => written);
  return {
    async setUp(db) {
      const books = [...SEED_BOOKS, ...NAIVE_BOOKS, ...MIXED_BOOKS];
      await sales(db).insertMany(
        books.map((_id) => ({ _id, title: `Book ${_id}`, customers_purchased: [] })),
      );
    },
    writers(db, prng) {
      return [
        ...[...SEED_BOOKS, ...MIXED_BOOKS].map((bookId) => seedWriter(db, bookId, ledger)),
        ...[...NAIVE_BOOKS, ...MIXED_BOOKS].map((bookId) =>
          naiveWriter(db, bookId, prng.fork(bookId), ledger),
        ),
      ];
    },
    async violations(db) {
      const problems: string[] = [];
      for (const bookId of [...SEED_BOOKS, ...NAIVE_BOOKS, ...MIXED_BOOKS]) {
        const { book, chunks } = await purchasers(db, bookId);
        problems.push(...shapeViolations(bookId, book, chunks));
        const found = [
          ...((book?.customers_purchased as string[] | undefined) ?? []),
          ...chunks.flatMap((chunk) => chunk.customers_purchased_extra as string[]),
        ];
        const written = booksWritten(bookId);
        problems.push(...exactlyOnce(`book ${bookId}`, written.flat(), found));
        // Each application's own purchases keep their order; across two applications writing
        // one book in different styles the order is a documented guess, so it is not checked.
        for (const own of written) problems.push(...inOrder(`book ${bookId}`, own, found));
      }
      return problems;
    },
  };
}
