// The subset seed's collections in a MemoryDb, product "p1", and what the tests read back.
import type { Document } from "mongodb";
import { MemoryDb } from "./memory-db.js";

/** `products` and `reviews`, the full set unique by `(product_id, review_id)` as in production. */
export function reviewsDb(): MemoryDb {
  return new MemoryDb({ reviews: [["product_id", "review_id"]] });
}

/** The review ids product p1 embeds, in order. */
export function embeddedIds(db: MemoryDb): unknown[] {
  return (db.find("products")[0]?.reviews as Document[]).map((entry) => entry.review_id);
}

/** The review ids in the full set, ascending. */
export function fullSetIds(db: MemoryDb): number[] {
  return db
    .find("reviews")
    .map((doc) => doc.review_id as number)
    .sort((a, b) => a - b);
}

export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
