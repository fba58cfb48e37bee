// A source whose _id is null is legal BSON; equality with null also matches documents that
// lack the field, so a careless query would hand it every orphan of the full set.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { review, useSidecarOnFreshDatabase, users } from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("null_references");

/** The driver gives a document inserted with a null _id an ObjectId: an upsert keeps the null. */
async function insertWithNullId(collection: string, fields: Document): Promise<void> {
  await fixture.db.collection<{ _id: null }>(collection).replaceOne({ _id: null }, fields, { upsert: true });
}

const DAY = 86_400_000;

void test("a product whose _id is null takes in no review that lacks product_id", async () => {
  const orphan = { _id: "orphan", ...review(99, new Date(Date.UTC(2030, 0, 1))) };
  await fixture.db.collection<{ _id: string }>("reviews").insertOne(orphan);
  const reviews = Array.from({ length: 11 }, (_, i) => review(i, new Date(Date.UTC(2020, 0, 1) + i * DAY)));
  await insertWithNullId("products", { name: "Null", reviews });

  await waitUntil(
    async () => (await fixture.db.collection("reviews").countDocuments({ product_id: null })) === 12,
    { description: "the null product's 11 reviews copied" },
  );
  await waitUntil(
    async () => {
      const product = await fixture.db
        .collection<{ _id: null; reviews: Document[] }>("products")
        .findOne({ _id: null });
      return (product?.reviews as unknown[]).length === 10;
    },
    { description: "the null product trimmed" },
  );
  const product = await fixture.db
    .collection<{ _id: null; reviews: Document[] }>("products")
    .findOne({ _id: null });
  const embedded = (product?.reviews as Document[]).map((entry) => entry.review_id as number);
  assert.deepEqual(embedded, [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
  assert.equal(await fixture.db.collection("reviews").countDocuments({ product_id: { $exists: false } }), 1);
});

void test("a book whose _id is null does not append its extras to a chunk that lacks book_id", async () => {
  const orphan = { _id: "orphan", seq: 7, customers_purchased_extra: ["someone"] };
  await fixture.db.collection<{ _id: string }>("extra_sales").insertOne(orphan);
  await insertWithNullId("sales", { customers_purchased: users(0, 60) });

  await waitUntil(
    async () =>
      (await fixture.db.collection<Document>("extra_sales").countDocuments({ book_id: null })) === 2,
    { description: "the null book's extras moved" },
  );
  const extras = await fixture.db
    .collection<Document>("extra_sales")
    .find({ book_id: { $eq: null, $exists: true } })
    .toArray();
  assert.deepEqual(
    extras.flatMap((chunk) => chunk.customers_purchased_extra as string[]),
    users(50, 60),
  );
  assert.deepEqual(await fixture.db.collection("extra_sales").findOne({ _id: "orphan" as never }), orphan);
});
