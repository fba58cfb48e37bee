// What a correction moves keeps its BSON types. The driver hands an int64 or an integral
// double to JavaScript as a number by default, which it writes back as an int32: a moved
// entry would come out of `extra_sales`, a new bucket or `reviews` with other types than the
// application wrote (a Java application would read an Integer where it stored a Long).
// Compared as canonical Extended JSON, which names every number's type.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BSON, Decimal128, Double, Int32, Long, type Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { review, useSidecarOnFreshDatabase, users } from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("bson-types");

/** One number of each type the driver would otherwise promote, and a Decimal128 beside them. */
function typedNumbers(n: number): Document {
  return {
    int: new Int32(n),
    long: Long.fromNumber(n),
    integralDouble: new Double(n),
    decimal: Decimal128.fromString(`${n}.50`),
  };
}

const VERBATIM = { promoteValues: false } as const;

function canonical(value: unknown): string {
  return BSON.EJSON.stringify(value, { relaxed: false });
}

/** The book's overflow entries once it holds `extras` of them, read without promotion. */
async function overflowEntries(bookId: unknown, extras: number): Promise<unknown[]> {
  return waitUntil(
    async () => {
      const chunks = await fixture.db
        .collection("extra_sales")
        .find({ book_id: bookId }, VERBATIM)
        .sort({ seq: 1 })
        .toArray();
      const entries = chunks.flatMap((chunk) => chunk.customers_purchased_extra as unknown[]);
      return entries.length === extras ? entries : undefined;
    },
    { description: `book ${String(bookId)} to have ${extras} overflow entries` },
  );
}

void test("a push onto a full book moves the pushed entry with its numbers' types (planned from the event)", async () => {
  const bookId = Long.fromNumber(1);
  await fixture.db.collection("sales").insertOne({ _id: bookId as never, customers_purchased: users(0, 50) });
  const pushed = { user: "user50", ...typedNumbers(7) };
  await fixture.db
    .collection<{ _id: Long; customers_purchased: Document[] }>("sales")
    .updateOne({ _id: bookId }, { $push: { customers_purchased: pushed } });

  assert.equal(canonical(await overflowEntries(bookId, 1)), canonical([pushed]));
  const chunk = await fixture.db.collection("extra_sales").findOne({ book_id: bookId }, VERBATIM);
  assert.equal(canonical(chunk?.book_id), canonical(bookId), "the chunk names the book with its _id's type");
});

void test("a book inserted past the threshold moves its extras with their numbers' types (planned from a read)", async () => {
  const entries = Array.from({ length: 55 }, (_, i) => ({ user: `user${i}`, ...typedNumbers(i) }));
  await fixture.db.collection("sales").insertOne({ _id: 2 as never, customers_purchased: entries });

  assert.equal(canonical(await overflowEntries(2, 5)), canonical(entries.slice(50)));
  const book = await fixture.db.collection("sales").findOne({ _id: 2 as never }, VERBATIM);
  assert.equal(canonical(book?.customers_purchased), canonical(entries.slice(0, 50)));
});

void test("a split bucket's new buckets keep its customer id's type and its trades' numbers' types", async () => {
  const start = Date.UTC(2024, 0, 1);
  const customerId = Long.fromNumber(77);
  const history = Array.from({ length: 12 }, (_, i) => ({
    type: "buy",
    ticker: "MDB",
    qty: new Double(100),
    ...typedNumbers(i),
    date: new Date(start + i * 60_000),
  }));
  await fixture.db
    .collection("trades")
    .insertOne({ _id: `77_${start / 1000}` as never, customerId, count: new Int32(12), history });

  const moved = await waitUntil(
    async () => {
      const buckets = await fixture.db
        .collection("trades")
        .find({ _id: /^77_/ as never }, VERBATIM)
        .sort({ _id: 1 })
        .toArray();
      return buckets.length === 2 ? buckets[1] : undefined;
    },
    { description: "customer 77's bucket to be split in two" },
  );
  assert.equal(canonical(moved.history), canonical(history.slice(10)));
  assert.equal(canonical(moved.customerId), canonical(customerId));
});

void test("a review pushed past the newest ten is copied into reviews with its numbers' types", async () => {
  const day = 86_400_000;
  const reviews = Array.from({ length: 11 }, (_, i) => ({
    ...review(i, new Date(Date.UTC(2024, 0, 1) + i * day)),
    review_id: Long.fromNumber(i),
    rating: new Double(4),
  }));
  const productId = Long.fromNumber(3);
  await fixture.db.collection("products").insertOne({ _id: productId as never, name: "Typed", reviews });

  const copies = await waitUntil(
    async () => {
      const found = await fixture.db
        .collection("reviews")
        .find({ product_id: 3 }, { ...VERBATIM, projection: { _id: 0 } })
        .sort({ published_date: 1 })
        .toArray();
      return found.length === 11 ? found : undefined;
    },
    { description: "product 3's eleven reviews to be copied" },
  );
  assert.equal(canonical(copies.map(({ product_id: _, ...copy }) => copy)), canonical(reviews));
  for (const copy of copies)
    assert.equal(
      canonical(copy.product_id),
      canonical(productId),
      "a copy names its product with its _id's type",
    );
});

void test("loose trades folded into a new bucket keep their customer id's type and their numbers' types", async () => {
  const customerId = Long.fromNumber(88);
  const date = new Date(Date.UTC(2024, 1, 1));
  const loose = { ticker: "MDB", customerId, type: "buy", quantity: new Double(5), ...typedNumbers(3), date };
  await fixture.db.collection("trades").insertOne(loose);

  const bucket = await waitUntil(
    async () =>
      (await fixture.db.collection("trades").findOne({ _id: /^88_/ as never }, VERBATIM)) ?? undefined,
    { description: "customer 88's loose trade to be folded into a bucket" },
  );
  const { _id: _ignored, customerId: _key, ...entry } = loose as Document;
  assert.equal(canonical(bucket.history), canonical([entry]));
  assert.equal(canonical(bucket.customerId), canonical(customerId));
});

void test("a loose trade folded into a customer's open bucket leaves the trades already there with their types", async () => {
  const customerId = Long.fromNumber(89);
  const date = new Date(Date.UTC(2024, 2, 1));
  const held = { type: "sell", ticker: "MDB", ...typedNumbers(1), date };
  await fixture.db.collection("trades").insertOne({
    _id: `89_${date.getTime() / 1000}` as never,
    customerId,
    count: new Int32(1),
    history: [held],
  });
  const later = new Date(date.getTime() + 60_000);
  const loose = { ticker: "MDB", customerId, type: "buy", ...typedNumbers(2), date: later };
  await fixture.db.collection("trades").insertOne(loose);

  const bucket = await waitUntil(
    async () => {
      const found = await fixture.db.collection("trades").findOne({ _id: /^89_/ as never }, VERBATIM);
      return (found?.history as unknown[] | undefined)?.length === 2 ? found : undefined;
    },
    { description: "customer 89's loose trade to be folded into its open bucket" },
  );
  const { _id: _ignored, customerId: _key, ...entry } = loose as Document;
  assert.equal(canonical(bucket!.history), canonical([held, entry]));
});
