// The three planners fed what a hostile or careless application stores: every BSON type,
// strings up to 1 MiB, documents nested 150 deep, field names that look like numbers (stored
// after others, which JS would list first), null and missing fields. Read as the readers read
// (the bytes decoded verbatim), a document is planned without a throw; a skip says why in a
// bounded message; and a plan's writes, applied, lose and duplicate no element.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  Binary,
  BSON,
  BSONRegExp,
  Code,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  type Document,
} from "mongodb";
import { verbatim } from "../../../src/patterns/bson/bson-value.js";
import { QUOTED_BYTES } from "../../../src/patterns/bson/quoted-value.js";
import { planBucketSplit, splitBaseIds } from "../../../src/patterns/bucket/planner.js";
import { planOutlierMove, planOverflowChunkSplit } from "../../../src/patterns/outlier/planner.js";
import { lastChunkOf } from "../../../src/patterns/outlier/overflow-chunks.js";
import { planSubset } from "../../../src/patterns/subset/planner.js";
import type { Plan } from "../../../src/patterns/plan.js";
import { MemoryDb, valueKey } from "./support/memory-db.js";
import { bucketRule, outlierRule, subsetRule } from "./support/rules.js";

const outlier = { ...outlierRule, threshold: 3, chunkSize: 4 };
const bucket = { ...bucketRule, threshold: 3 };
const subset = { ...subsetRule, threshold: 3 };
const RUNS = { numRuns: 200, includeErrorInReport: true };

/** A skip names a few fields and quotes a few values, each cut to QUOTED_BYTES. */
const MAX_REASON_BYTES = 4 * QUOTED_BYTES + 512;

const hugeString = fc
  .tuple(fc.string({ maxLength: 3 }), fc.constantFrom(300, 70_000, 1 << 20))
  .map(([head, length]) => head.padEnd(length, "x"));

const scalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ unit: "binary", maxLength: 6 }),
  hugeString,
  fc.integer().map((n) => new Int32(n)),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => Long.fromBigInt(n)),
  fc.double().map((n) => new Double(n)),
  fc.constantFrom(
    Decimal128.fromString("1.5"),
    new ObjectId("656565656565656565656565"),
    new Timestamp({ t: 1, i: 2 }),
    new BSONRegExp("a+", "i"),
    new MinKey(),
    new MaxKey(),
    new Code("x"),
    new Binary(Buffer.from([1, 2])),
    null,
    true,
  ),
  fc.date({ min: new Date(-1e13), max: new Date(1e13), noInvalidDate: true }),
);

/** Field names the planners read, numbers' look-alikes, and prefixes of both. */
const fieldName = fc.oneof(
  fc.constantFrom(
    "0",
    "1",
    "2",
    "10",
    "01",
    "_id",
    "date",
    "da",
    "review_id",
    "published_date",
    "seq",
    "count",
  ),
  fc.string({ minLength: 1, maxLength: 3 }).filter((name) => !/[$.\0]/.test(name)),
);

/** A document as a Map: its fields in the generated order, which BSON keeps and JS would not. */
const documentOf = (value: fc.Arbitrary<unknown>) =>
  fc
    .uniqueArray(fc.tuple(fieldName, value), { maxLength: 4, selector: ([name]) => name })
    .map((fields) => new Map(fields));

const deeplyNested = fc
  .integer({ min: 20, max: 150 })
  .map((depth) => Array.from({ length: depth }).reduce<unknown>((inner) => new Map([["1", inner]]), 0));

const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    deeplyNested,
    fc.array(tie("value"), { maxLength: 3 }),
    documentOf(tie("value")),
  ),
}));

/** A field that holds `arbitrary`, or anything, or is missing. */
const field = (arbitrary: fc.Arbitrary<unknown>) =>
  fc.option(fc.oneof({ weight: 3, arbitrary }, { weight: 1, arbitrary: value }), { nil: undefined });

const id = fc.oneof(
  fc.integer().map((n) => new Int32(n)),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => Long.fromBigInt(n)),
  fc.string({ maxLength: 4 }),
  fc.constantFrom(null, new ObjectId("656565656565656565656565"), new Date(0)),
  documentOf(scalar),
);

/** `fields` without the missing ones, as a document stored in the generated order. */
function stored(fields: Record<string, unknown>): Map<string, unknown> {
  return new Map(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/** `document` as a reader reads it: its bytes decoded verbatim. */
function read(document: Map<string, unknown>): Document {
  return verbatim(BSON.serialize(document));
}

function multiset(elements: readonly unknown[]): string[] {
  return elements.map(valueKey).sort();
}

const arrayOf = (doc: Document | undefined, name: string): unknown[] =>
  Array.isArray(doc?.[name]) ? (doc[name] as unknown[]) : [];

/** Plans without a throw; a skip with a bounded reason writes nothing. */
function planned(plan: () => Plan): Plan {
  let result: Plan;
  try {
    result = plan();
  } catch (error) {
    assert.fail(`the planner threw: ${String(error).slice(0, 500)}`);
  }
  if (result.outcome === "skip") {
    assert.ok(result.reason.length > 0, "a skip says why");
    const bytes = Buffer.byteLength(result.reason);
    assert.ok(bytes <= MAX_REASON_BYTES, `a skip reason of ${bytes} bytes: ${result.reason.slice(0, 300)}`);
  }
  return result;
}

void test("hostile books and chunks are moved or split without losing or duplicating a purchaser", () => {
  const book = fc.record({
    _id: id,
    purchasers: field(fc.array(value, { maxLength: 9 })),
    flag: field(fc.boolean()),
    other: field(value),
  });
  const chunk = fc.option(
    fc.record({
      sameBook: fc.boolean(),
      book: id,
      seq: field(fc.nat(3).map((n) => new Int32(n))),
      extras: field(fc.array(value, { maxLength: 7 })),
    }),
    { nil: undefined },
  );
  fc.assert(
    fc.property(book, chunk, (b, c) => {
      const source = read(
        stored({ _id: b._id, customers_purchased: b.purchasers, has_extras: b.flag, other: b.other }),
      );
      const overflow =
        c &&
        read(
          stored({
            _id: new ObjectId("777777777777777777777777"),
            book_id: c.sameBook ? b._id : c.book,
            seq: c.seq,
            customers_purchased_extra: c.extras,
          }),
        );
      const db = new MemoryDb();
      db.insertOne("sales", source);
      if (overflow) db.insertOne("extra_sales", overflow);
      const elements = () => [
        ...arrayOf(db.find("sales")[0], "customers_purchased"),
        ...db.find("extra_sales").flatMap((doc) => arrayOf(doc, "customers_purchased_extra")),
      ];
      const before = multiset(elements());
      const lastChunk = overflow ? lastChunkOf(outlier, overflow) : null;
      const plans = [planned(() => planOutlierMove(outlier, { source, lastChunk }))];
      if (overflow && lastChunk)
        plans.push(planned(() => planOverflowChunkSplit(outlier, { chunk: overflow, lastChunk, source })));
      // Each plan was made from the same reads: apply the first that writes, as one
      // correction would, and leave the other to the next correction's fresh read.
      const writing = plans.find((plan) => plan.outcome === "writes");
      if (writing?.outcome === "writes") db.apply(writing.writes);
      assert.deepEqual(multiset(elements()), before);
    }),
    RUNS,
  );
});

void test("hostile buckets are split without losing or duplicating a trade, each bucket's count its size", () => {
  const trade = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({ date: field(fc.date({ noInvalidDate: true })), ticker: field(value) }),
    },
    { weight: 1, arbitrary: fc.record({ any: value }) },
  );
  const bucketDoc = fc.record({
    customer: field(
      fc.oneof(
        fc.string({ maxLength: 4 }),
        fc.integer().map((n) => new Int32(n)),
        hugeString,
      ),
    ),
    count: field(fc.nat(20).map((n) => new Int32(n))),
    history: field(
      fc.array(
        fc.oneof(
          trade.map((t) => stored(t)),
          value,
        ),
        { maxLength: 12 },
      ),
    ),
  });
  fc.assert(
    fc.property(bucketDoc, (b) => {
      const document = read(
        stored({
          _id: `${String(b.customer).slice(0, 8)}_1700000000`,
          customerId: b.customer,
          count: b.count,
          history: b.history,
        }),
      );
      const db = new MemoryDb();
      db.insertOne("trades", document);
      const elements = () => db.find("trades").flatMap((doc) => arrayOf(doc, "history"));
      const before = multiset(elements());
      const takenIds = new Set(splitBaseIds(bucket, document).filter((base) => base === document._id));
      const plan = planned(() => planBucketSplit(bucket, { bucket: document, takenIds }));
      if (plan.outcome !== "writes") return;
      db.apply(plan.writes);
      assert.deepEqual(multiset(elements()), before);
      for (const doc of db.find("trades")) {
        assert.ok(arrayOf(doc, "history").length <= bucket.threshold);
        assert.equal(Number(doc.count), arrayOf(doc, "history").length);
      }
    }),
    RUNS,
  );
});

void test("a hostile product's reviews are each copied once, and what stays embedded is among them", () => {
  const review = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        review_id: field(
          fc.oneof(
            fc.nat(5).map((n) => new Int32(n)),
            fc.string({ maxLength: 2 }),
          ),
        ),
        published_date: field(fc.date({ noInvalidDate: true })),
        review_text: field(value),
      }),
    },
    { weight: 1, arbitrary: fc.record({ any: value }) },
  );
  const product = fc.record({
    _id: id,
    reviews: field(
      fc.array(
        fc.oneof(
          review.map((r) => stored(r)),
          value,
        ),
        { maxLength: 6 },
      ),
    ),
  });
  fc.assert(
    fc.property(product, (p) => {
      const source = read(stored({ _id: p._id, reviews: p.reviews }));
      const db = new MemoryDb();
      db.insertOne("products", source);
      const embeddedBefore = arrayOf(source, "reviews");
      const plan = planned(() => planSubset(subset, { source, fullSet: [] }));
      if (plan.outcome !== "writes") return;
      db.apply(plan.writes);
      const copies = db.find("reviews");
      const idKeys = copies.map((copy) => valueKey(copy.review_id));
      assert.equal(new Set(idKeys).size, idKeys.length, "no review copied twice");
      for (const embedded of embeddedBefore)
        assert.ok(
          idKeys.includes(valueKey((embedded as Document).review_id)),
          "every embedded review copied",
        );
      const embeddedAfter = arrayOf(db.find("products")[0], "reviews");
      assert.ok(embeddedAfter.length <= subset.threshold);
      const before = multiset(embeddedBefore);
      for (const key of multiset(embeddedAfter))
        assert.ok(before.includes(key), "nothing embedded that was not");
    }),
    RUNS,
  );
});
