import assert from "node:assert/strict";
import { test } from "node:test";
import { Decimal128, Int32, Long, ObjectId } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_crud");

void test("ObjectId, Date, Decimal128, Long and Int32 values come back with their types", async () => {
  const collection = fixture.db.collection("types");
  const doc = {
    _id: new ObjectId(),
    when: new Date("2023-10-26T15:47:03.434Z"),
    price: Decimal128.fromString("119.99"),
    big: Long.fromString("9007199254740993"),
    small: new Int32(7),
  };
  await collection.insertOne(doc);
  const found = await collection.findOne({ _id: doc._id }, { promoteValues: false, promoteLongs: false });
  assert.ok(found);
  assert.equal(found._id.toHexString(), doc._id.toHexString());
  assert.equal(found.when.getTime(), doc.when.getTime());
  assert.equal(found.price.toString(), "119.99");
  assert.equal(found.big._bsontype, "Long");
  assert.equal(found.big.toString(), "9007199254740993");
  assert.equal(found.small._bsontype, "Int32");
  assert.equal(found.small.value, 7);
});

void test("a double stays a double and matches $type 'double'", async () => {
  const collection = fixture.db.collection("doubles");
  await collection.insertOne({ _id: 1 as never, ratio: 2.5 });
  assert.equal(await collection.countDocuments({ ratio: { $type: "double" } }), 1);
});

void test("the seed's sales and extra_sales inserts read back unchanged", async () => {
  const customers = Array.from({ length: 50 }, (_, i) => `user${String(i).padStart(2, "0")}`);
  await fixture.db.collection("sales").insertOne({
    _id: 1 as never,
    title: "Invisible Cities",
    year: 1972,
    author: "Italo Calvino",
    customers_purchased: ["user00", "user01", "user02"],
  });
  await fixture.db.collection("sales").insertOne({
    _id: 2 as never,
    title: "The Wooden Amulet",
    year: 2023,
    author: "Lesley Moreno",
    customers_purchased: customers,
    has_extras: true,
  });
  await fixture.db
    .collection("extra_sales")
    .insertOne({ book_id: 2, customers_purchased_extra: ["user50", "user51"] });
  const book = await fixture.db.collection("sales").findOne({ _id: 2 as never });
  assert.deepEqual(book?.customers_purchased, customers);
  const extras = await fixture.db.collection("extra_sales").find({ book_id: 2 }).toArray();
  assert.deepEqual(
    extras.map((e) => e.customers_purchased_extra),
    [["user50", "user51"]],
  );
  assert.ok(extras[0]!._id instanceof ObjectId);
});

void test("the seed's products and reviews inserts keep the embedded reviews in order", async () => {
  // The seed's ObjectId literal has 23 hex digits; a valid one stands in for it.
  const productId = new ObjectId("507f1f77bcf86cd799338452");
  const reviews = [
    {
      review_id: 786,
      review_author: "Kristina",
      review_text: "This is indeed an amazing widget.",
      published_date: new Date("2019-02-18"),
    },
    {
      review_id: 785,
      review_author: "Trina",
      review_text: "Very nice product, slow shipping.",
      published_date: new Date("2019-02-17"),
    },
  ];
  await fixture.db.collection("products").insertOne({
    _id: productId,
    name: "Super Widget",
    description: "This is the most useful item in your toolbox.",
    price: { value: Decimal128.fromString("119.99"), currency: "USD" },
    reviews,
  });
  await fixture.db.collection("reviews").insertMany(reviews.map((r) => ({ ...r, product_id: productId })));
  const product = await fixture.db.collection("products").findOne({ _id: productId });
  assert.deepEqual(
    product?.reviews.map((r: { review_id: number }) => r.review_id),
    [786, 785],
  );
  assert.equal(await fixture.db.collection("reviews").countDocuments({ product_id: productId }), 2);
});

void test("updateMany reports matched and modified counts, leaving unchanged documents unmodified", async () => {
  const collection = fixture.db.collection("counts");
  await collection.insertMany([
    { k: 1, v: 0 },
    { k: 1, v: 5 },
    { k: 2, v: 0 },
  ]);
  const result = await collection.updateMany({ k: 1 }, { $set: { v: 5 } });
  assert.equal(result.matchedCount, 2);
  assert.equal(result.modifiedCount, 1);
});

void test("an upsert with no match inserts the filter's equality fields and reports the new _id", async () => {
  const collection = fixture.db.collection("upserts");
  const result = await collection.updateOne({ sku: "A1" }, { $set: { qty: 3 } }, { upsert: true });
  assert.equal(result.upsertedCount, 1);
  const doc = await collection.findOne({ _id: result.upsertedId! });
  assert.equal(doc?.sku, "A1");
  assert.equal(doc?.qty, 3);
});

void test("replaceOne swaps the whole document but keeps its _id", async () => {
  const collection = fixture.db.collection("replace");
  await collection.insertOne({ _id: 1 as never, a: 1, b: 2 });
  await collection.replaceOne({ _id: 1 as never }, { c: 3 });
  assert.deepEqual(await collection.findOne({ _id: 1 as never }), { _id: 1, c: 3 });
});

void test("changing _id in an update fails with ImmutableField", async () => {
  const collection = fixture.db.collection("immutable");
  await collection.insertOne({ _id: 1 as never, a: 1 });
  await assert.rejects(collection.updateOne({ _id: 1 as never }, { $set: { _id: 2 } }), { code: 66 });
});

void test("deleteOne removes one match and deleteMany all of them", async () => {
  const collection = fixture.db.collection("deletes");
  await collection.insertMany([{ t: 1 }, { t: 1 }, { t: 1 }]);
  assert.equal((await collection.deleteOne({ t: 1 })).deletedCount, 1);
  assert.equal((await collection.deleteMany({ t: 1 })).deletedCount, 2);
  assert.equal(await collection.countDocuments({}), 0);
});

void test("findOneAndUpdate returns the document before or after the update as asked", async () => {
  const collection = fixture.db.collection("fam");
  await collection.insertOne({ _id: 1 as never, n: 1 });
  const before = await collection.findOneAndUpdate({ _id: 1 as never }, { $inc: { n: 1 } });
  const afterUpdate = await collection.findOneAndUpdate(
    { _id: 1 as never },
    { $inc: { n: 1 } },
    { returnDocument: "after" },
  );
  assert.equal(before?.n, 1);
  assert.equal(afterUpdate?.n, 3);
});

void test("findOneAndDelete picks the first document in sort order", async () => {
  const collection = fixture.db.collection("famsort");
  await collection.insertMany([{ p: 2 }, { p: 1 }, { p: 3 }]);
  const removed = await collection.findOneAndDelete({}, { sort: { p: -1 } });
  assert.equal(removed?.p, 3);
  assert.equal(await collection.countDocuments({}), 2);
});

void test("distinct returns each value once, unwinding arrays", async () => {
  const collection = fixture.db.collection("distinct");
  await collection.insertMany([{ tags: ["a", "b"] }, { tags: "b" }, { tags: ["c"] }]);
  assert.deepEqual((await collection.distinct("tags")).sort(), ["a", "b", "c"]);
});

void test("an aggregation groups documents", async () => {
  const collection = fixture.db.collection("agg");
  await collection.insertMany([
    { g: "x", n: 1 },
    { g: "x", n: 2 },
    { g: "y", n: 5 },
  ]);
  const groups = await collection
    .aggregate([{ $group: { _id: "$g", total: { $sum: "$n" } } }, { $sort: { _id: 1 } }])
    .toArray();
  assert.deepEqual(groups, [
    { _id: "x", total: 3 },
    { _id: "y", total: 5 },
  ]);
});

void test("$out replaces the target collection with the pipeline's results", async () => {
  const source = fixture.db.collection("outsource");
  await source.insertMany([
    { _id: 1 as never, v: 1 },
    { _id: 2 as never, v: 2 },
  ]);
  await fixture.db.collection("outtarget").insertOne({ _id: 9 as never, old: true });
  await source.aggregate([{ $match: { v: { $gt: 1 } } }, { $out: "outtarget" }]).toArray();
  assert.deepEqual(await fixture.db.collection("outtarget").find().toArray(), [{ _id: 2, v: 2 }]);
});

void test("$merge updates matching documents and inserts the rest", async () => {
  const source = fixture.db.collection("mergesource");
  const target = fixture.db.collection("mergetarget");
  await target.insertOne({ _id: 1 as never, a: 1 });
  await source.insertMany([
    { _id: 1 as never, b: 2 },
    { _id: 2 as never, b: 3 },
  ]);
  await source.aggregate([{ $merge: { into: "mergetarget" } }]).toArray();
  assert.deepEqual(await target.find().sort({ _id: 1 }).toArray(), [
    { _id: 1, a: 1, b: 2 },
    { _id: 2, b: 3 },
  ]);
});

void test("listCollections reports changeStreamPreAndPostImages given at create", async () => {
  await fixture.db.createCollection("withImages", { changeStreamPreAndPostImages: { enabled: true } });
  const [info] = await fixture.db.listCollections({ name: "withImages" }).toArray();
  assert.deepEqual(
    (info as unknown as { options: { changeStreamPreAndPostImages: unknown } }).options
      .changeStreamPreAndPostImages,
    {
      enabled: true,
    },
  );
});

void test("renameCollection moves the documents to the new name", async () => {
  await fixture.db.collection("before_rename").insertOne({ x: 1 });
  await fixture.db.renameCollection("before_rename", "after_rename");
  assert.equal(await fixture.db.collection("after_rename").countDocuments({}), 1);
  assert.equal((await fixture.db.listCollections({ name: "before_rename" }).toArray()).length, 0);
});
