// The load the backlog benchmark replays: books, a backlog of $push events written while no
// sidecar runs, a sentinel whose correction marks the end of a drain, and timed triggers.
import type { Db, Document } from "mongodb";
import { waitUntil } from "../src/cli/wait-until.js";
import { allPurchasers, users } from "../test/support/harness.js";

type Sales = { _id: number; customers_purchased: string[] };

/** Books below the threshold a backlog pushes into: pushes into them never need a correction. */
export const SMALL_BOOKS = 2_000;
const FULL_BOOK_BASE = 100_000;

export function sales(db: Db) {
  return db.collection<Sales>("sales");
}

/** `sets` sets of SMALL_BOOKS empty books, one set for each backlog: one fills a set's books to 25. */
export async function insertSmallBooks(db: Db, sets: number): Promise<void> {
  const books = Array.from({ length: SMALL_BOOKS * sets }, (_, i) => ({ _id: i, customers_purchased: [] }));
  await sales(db).insertMany(books);
}

/** `count` books holding exactly the threshold (50): one more push each needs a correction. */
export async function insertFullBooks(db: Db, first: number, count: number): Promise<number[]> {
  const ids = Array.from({ length: count }, (_, i) => FULL_BOOK_BASE + first + i);
  for (let i = 0; i < ids.length; i += 1000) {
    const slice = ids.slice(i, i + 1000);
    await sales(db).insertMany(slice.map((id) => ({ _id: id, customers_purchased: users(0, 50) })));
  }
  return ids;
}

/**
 * `events` single-element pushes, `writers` at a time; every `correctEvery`-th goes to the
 * next full book (0: none do), the others to the small books of set `smallSet`. Each small
 * book receives at most 25, so it stays below 50.
 */
export async function writeBacklog(
  db: Db,
  events: number,
  fullBooks: readonly number[],
  correctEvery: number,
  smallSet: number,
): Promise<void> {
  const writers = 16;
  let next = 0;
  let small = 0;
  let full = 0;
  const writeOne = async (i: number) => {
    const corrects = correctEvery > 0 && i % correctEvery === correctEvery - 1;
    const id = corrects ? fullBooks[full++]! : smallSet * SMALL_BOOKS + (small++ % SMALL_BOOKS);
    await sales(db).updateOne({ _id: id }, { $push: { customers_purchased: corrects ? "user50" : "x" } });
  };
  const worker = async () => {
    while (next < events) await writeOne(next++);
  };
  await Promise.all(Array.from({ length: writers }, worker));
}

/** Pushes one purchaser into a full book: its correction is the end marker of a drain. */
export async function pushSentinel(db: Db, bookId: number): Promise<void> {
  await sales(db).updateOne({ _id: bookId }, { $push: { customers_purchased: "user50" } });
}

function corrected(db: Db, filter: Document): () => Promise<boolean> {
  return async () =>
    (await sales(db).countDocuments({ ...filter, "customers_purchased.50": { $exists: true } })) === 0;
}

/**
 * Waits for the sentinel's correction (an `_id` lookup, cheap to poll), then until no book
 * holds more than 50 purchasers (a scan): only the load's triggers push a book past 50.
 */
export async function waitForAllCorrected(db: Db, sentinel: number, timeoutMs: number): Promise<void> {
  const options = { timeoutMs, intervalMs: 20 };
  await waitUntil(corrected(db, { _id: sentinel }), {
    ...options,
    description: `book ${sentinel} corrected`,
  });
  await waitUntil(corrected(db, {}), { ...options, description: "every book corrected" });
}

/** Every corrected book holds user00..user50 in order, 50 embedded: nothing lost or duplicated. */
export async function verifyCorrectedBooks(db: Db, bookIds: readonly number[]): Promise<void> {
  const expected = users(0, 51).join(",");
  for (const id of bookIds) {
    const purchasers = await allPurchasers(db, id);
    if (purchasers.join(",") !== expected) throw new Error(`book ${id}: purchasers ${purchasers.join(",")}`);
  }
}
