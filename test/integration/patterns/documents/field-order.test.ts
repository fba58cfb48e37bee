// What a correction moves is the bytes the application wrote, field order included. A JS
// object lists integer-like names first ("1", "2" before "b"), so an entry or an id decoded
// into one and written back would be another value: MongoDB compares documents field by
// field in order, and a chunk's `book_id` would no longer equal its book's `_id`. Documents
// are sent as Maps (js-bson serializes them in insertion order) and read back as raw bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useSidecarOnFreshDatabase } from "../../../support/harness.js";
import * as orderedBson from "../../../support/ordered-bson.js";

const fixture = useSidecarOnFreshDatabase("field-order");

const { ordered, bytesOf, asBytes } = orderedBson;
const rawDocuments = (name: string, filter: Document, sort: Document) =>
  orderedBson.rawDocuments(fixture.db, name, filter, sort);
const insertOrdered = (name: string, doc: Document) => orderedBson.insertOrdered(fixture.db, name, doc);

/** An entry whose integer-like names come after another and out of numeric order. */
const entry = (i: number): Document => ordered(["b", `x${i}`], ["2", 1], ["1", i]);

void test("entries pushed past a book's threshold reach extra_sales as written, under the book's _id as written", async () => {
  const bookId = ordered(["b", 1], ["1", 1]);
  const held = Array.from({ length: 50 }, (_, i) => entry(i));
  await insertOrdered("sales", ordered(["_id", bookId], ["title", "Ordered"], ["customers_purchased", held]));
  const pushed = [entry(50), entry(51), entry(52)];
  await fixture.db.command({
    update: "sales",
    updates: [{ q: { _id: bookId }, u: { $push: { customers_purchased: { $each: pushed } } } }],
  });

  const chunks = await waitUntil(
    async () => {
      const found = await rawDocuments("extra_sales", { book_id: bookId }, { seq: 1 });
      const moved = found.flatMap((chunk) => chunk.customers_purchased_extra as unknown[]);
      return moved.length === pushed.length ? found : undefined;
    },
    { description: "the three pushed entries to reach extra_sales" },
  );
  const moved = chunks.flatMap((chunk) => chunk.customers_purchased_extra as unknown[]);
  assert.deepEqual(moved.map(asBytes), pushed.map(bytesOf));
  for (const chunk of chunks) assert.deepEqual(asBytes(chunk.book_id), bytesOf(bookId));
  const [book] = await rawDocuments("sales", { _id: bookId }, { _id: 1 });
  assert.deepEqual((book?.customers_purchased as unknown[]).map(asBytes), held.map(bytesOf));
});

void test("a bucket split moves its trades into a new bucket as written", async () => {
  const start = Date.UTC(2024, 0, 1);
  const trade = (i: number): Document =>
    ordered(["type", "buy"], ["2", 1], ["1", i], ["date", new Date(start + i * 60_000)]);
  const history = Array.from({ length: 12 }, (_, i) => trade(i));
  await insertOrdered(
    "trades",
    ordered(["_id", `77_${start / 1000}`], ["customerId", 77], ["count", 12], ["history", history]),
  );

  const moved = await waitUntil(
    async () => {
      const buckets = await rawDocuments("trades", { _id: /^77_/ }, { _id: 1 });
      return buckets.length === 2 ? buckets[1] : undefined;
    },
    { description: "customer 77's bucket to be split in two" },
  );
  assert.deepEqual((moved.history as unknown[]).map(asBytes), history.slice(10).map(bytesOf));
});

void test("a review pushed past a product's newest ten is copied into reviews as written, under the product's _id as written", async () => {
  const productId = ordered(["b", 3], ["1", 3]);
  const day = 86_400_000;
  const review = (i: number): Document =>
    ordered(
      ["review_id", i],
      ["2", "two"],
      ["1", "one"],
      ["review_text", `text ${i}`],
      ["published_date", new Date(Date.UTC(2024, 0, 1) + i * day)],
    );
  const reviews = Array.from({ length: 11 }, (_, i) => review(i));
  await insertOrdered("products", ordered(["_id", productId], ["name", "Ordered"], ["reviews", reviews]));

  const copies = await waitUntil(
    async () => {
      const found = await rawDocuments("reviews", { product_id: productId }, { published_date: 1 });
      return found.length === reviews.length ? found : undefined;
    },
    { description: "the product's eleven reviews to be copied" },
  );
  const copied = await fixture.db
    .collection("reviews")
    .find({ product_id: productId }, { raw: true, projection: { _id: 0 } })
    .sort({ published_date: 1 })
    .toArray();
  const expected = reviews.map((written) =>
    bytesOf(new Map([...(written as unknown as Map<string, unknown>), ["product_id", productId]])),
  );
  assert.deepEqual(copied.map(asBytes), expected);
  for (const copy of copies) assert.deepEqual(asBytes(copy.product_id), bytesOf(productId));
});
