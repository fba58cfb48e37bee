// The planners plan a document read verbatim (numbers as Int32, Long and Double objects, as
// the readers read them) as they plan it promoted (numbers as JS numbers, the driver's
// default): the same writes by value. And the verbatim plan writes every entry it moves with
// the types it was read with, so that nothing a correction moves changes its BSON type.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { BSON, Double, Int32, Long, type Document } from "mongodb";
import { bsonKey, verbatim } from "../../../src/patterns/bson/bson-value.js";
import { planBucketSplit } from "../../../src/patterns/bucket/planner.js";
import { planLooseEntryFold } from "../../../src/patterns/bucket/loose-entries.js";
import { planOutlierMove, planOverflowChunkSplit } from "../../../src/patterns/outlier/planner.js";
import { lastChunkOf } from "../../../src/patterns/outlier/overflow-chunks.js";
import { planSubset } from "../../../src/patterns/subset/planner.js";
import type { Plan } from "../../../src/patterns/plan.js";
import { bucketRule, outlierRule, subsetRule } from "./support/rules.js";

const outlier = { ...outlierRule, threshold: 5, chunkSize: 4 };
const bucket = { ...bucketRule, threshold: 3 };
const subset = { ...subsetRule, threshold: 3 };
const DAY = 86_400_000;

/** A number of one of the types the driver promotes to a JS number. */
const typedNumber = (min: number, max: number): fc.Arbitrary<unknown> =>
  fc
    .tuple(fc.integer({ min, max }), fc.constantFrom("int32", "int64", "double", "fraction"))
    .map(([n, type]) => {
      if (type === "int32") return new Int32(n);
      if (type === "int64") return Long.fromNumber(n);
      return new Double(type === "fraction" ? n + 0.25 : n);
    });

/** Entries told apart by `tag`, each with numbers of every promoted type. */
const entries = (max: number): fc.Arbitrary<Document[]> =>
  fc
    .array(fc.tuple(typedNumber(-3, 3), typedNumber(0, 2 ** 40), fc.integer({ min: 0, max: 5 })), {
      maxLength: max,
    })
    .map((rows) =>
      rows.map(([small, large, day], i) => {
        const date = new Date(Date.UTC(2024, 0, 1) + day * DAY);
        return { tag: `e${i}`, small, large, date, published_date: date };
      }),
    );

/** `document` as a reader would read it: verbatim, or promoted as by the driver's default. */
function read(document: Document, promoteValues: boolean): Document {
  return BSON.deserialize(BSON.serialize(document), { promoteValues });
}

function canonical(value: unknown): string {
  return BSON.EJSON.stringify({ v: value }, { relaxed: false });
}

/** Every entry (a document with a `tag`) anywhere in `plan`'s writes. */
function entriesWritten(value: unknown, found: Document[] = []): Document[] {
  if (Array.isArray(value)) for (const item of value) entriesWritten(item, found);
  else if (value && typeof value === "object" && !("_bsontype" in value) && !(value instanceof Date)) {
    if (typeof (value as Document).tag === "string") found.push(value as Document);
    for (const field of Object.values(value)) entriesWritten(field, found);
  }
  return found;
}

/** Plans the verbatim and the promoted reads of one state, and checks both properties. */
function assertPlansVerbatim(original: Document[], planOf: (read: (d: Document) => Document) => Plan): void {
  const verbatim = planOf((document) => read(document, false));
  const promoted = planOf((document) => read(document, true));
  assert.equal(bsonKey(verbatim), bsonKey(promoted), "the same plan by value");
  const originals = new Map(original.map((entry) => [entry.tag as string, entry]));
  for (const written of entriesWritten(verbatim)) {
    const entry = originals.get(written.tag as string);
    assert.ok(entry, `an entry written that was never read: ${canonical(written)}`);
    // A folded loose document loses its _id and key, a copied review gains its product's id.
    for (const [field, value] of Object.entries(written))
      if (field in entry)
        assert.equal(
          canonical(value),
          canonical(entry[field]),
          `${String(written.tag)}.${field} keeps its type`,
        );
  }
}

void test("an outlier source and its last chunk are planned alike read verbatim or promoted, moving entries with their types", () => {
  fc.assert(
    fc.property(
      typedNumber(1, 9),
      entries(12),
      fc.option(fc.tuple(typedNumber(0, 3), entries(6))),
      (id, embedded, chunk) => {
        const source = { _id: id, customers_purchased: embedded };
        const lastChunk = chunk && {
          _id: { book_id: id, seq: chunk[0] },
          book_id: id,
          seq: chunk[0],
          customers_purchased_extra: chunk[1].map((entry) => ({ ...entry, tag: `c${String(entry.tag)}` })),
        };
        const original = [...embedded, ...(lastChunk?.customers_purchased_extra ?? [])];
        assertPlansVerbatim(original, (reader) =>
          planOutlierMove(outlier, {
            source: reader(source),
            lastChunk: lastChunk && lastChunkOf(outlier, reader(lastChunk)),
          }),
        );
        if (lastChunk)
          assertPlansVerbatim(original, (reader) =>
            planOverflowChunkSplit(outlier, {
              chunk: reader(lastChunk),
              lastChunk: lastChunkOf(outlier, reader(lastChunk)),
            }),
          );
      },
    ),
  );
});

void test("a bucket is planned alike read verbatim or promoted, its split moving trades with their types", () => {
  fc.assert(
    fc.property(typedNumber(1, 9), typedNumber(0, 8), entries(8), (customerId, count, history) => {
      const trades = { _id: "k_1704067200", customerId, count, history };
      assertPlansVerbatim(history, (reader) =>
        planBucketSplit(bucket, { bucket: reader(trades), takenIds: new Set() }),
      );
    }),
  );
});

void test("loose trades and an open bucket are folded alike read verbatim or promoted, rewriting every trade with its types", () => {
  fc.assert(
    fc.property(typedNumber(1, 9), entries(2), entries(5), (customerId, open, loose) => {
      const openBucket = {
        _id: "k_1704067200",
        customerId,
        count: open.length,
        history: open.map((entry) => ({ ...entry, tag: `o${String(entry.tag)}` })),
      };
      const looseDocuments = loose.map((entry, i) => ({ _id: i, customerId, ...entry }));
      assertPlansVerbatim([...openBucket.history, ...looseDocuments], (reader) =>
        planLooseEntryFold(bucket, {
          key: reader({ key: customerId }).key,
          entries: looseDocuments.map(reader),
          openBucket: reader(openBucket),
          takenIds: new Set([openBucket._id]),
        }),
      );
    }),
  );
});

void test("a product is planned alike read verbatim or promoted, copying reviews with their types", () => {
  fc.assert(
    fc.property(typedNumber(1, 9), entries(6), (productId, rows) => {
      // Review ids of mixed types, distinct by value.
      const reviews = rows.map((row, i) => ({
        ...row,
        review_id: [new Int32(i), Long.fromNumber(i), new Double(i)][i % 3],
      }));
      const product = { _id: productId, reviews };
      assertPlansVerbatim(reviews, (reader) => planSubset(subset, { source: reader(product), fullSet: [] }));
    }),
  );
});

/** An entry whose names look like numbers and come after another one, in a drawn order. */
const numberNamedEntries = (max: number): fc.Arbitrary<Map<string, unknown>[]> =>
  fc
    .array(fc.uniqueArray(fc.constantFrom("2", "1", "10", "0", "x"), { minLength: 1 }), { maxLength: max })
    .map((rows) =>
      rows.map(
        (names, i) =>
          new Map<string, unknown>([
            ["tag", `e${i}`],
            ...names.map((name) => [name, new Int32(i)] as [string, unknown]),
            ["date", new Date(Date.UTC(2024, 0, 1) + i * DAY)],
            ["published_date", new Date(Date.UTC(2024, 0, 1) + i * DAY)],
          ]),
      ),
    );

const bytesOf = (value: unknown): string => Buffer.from(BSON.serialize({ v: value })).toString("hex");

void test("entries and ids whose names look like numbers are written back in their order, byte for byte", () => {
  const id = new Map<string, unknown>([
    ["b", new Int32(1)],
    ["1", new Int32(1)],
  ]);
  fc.assert(
    fc.property(numberNamedEntries(14), (written) => {
      const sent = { _id: id, customers_purchased: written, history: written, reviews: written };
      const doc = verbatim(BSON.serialize(sent));
      const plans = [
        planOutlierMove(outlier, { source: doc, lastChunk: null }),
        planBucketSplit(bucket, {
          bucket: { ...doc, customerId: 1, count: written.length },
          takenIds: new Set(),
        }),
      ];
      const byTag = new Map(written.map((entry) => [entry.get("tag") as string, bytesOf(entry)]));
      for (const plan of plans)
        for (const entry of entriesWritten(plan))
          assert.equal(bytesOf(entry), byTag.get(entry.tag as string));
      const copies = entriesWritten(planSubset(subset, { source: doc, fullSet: [] })).filter(
        (entry) => entry.product_id !== undefined,
      );
      for (const copy of copies)
        assert.equal(bytesOf(copy.product_id), bytesOf(id), "the copy names its product as written");
      const moved = plans.flatMap((plan) => (plan.outcome === "writes" ? plan.writes : []));
      for (const write of moved)
        if (write.op === "insertOne" && write.document.book_id !== undefined)
          assert.equal(bytesOf(write.document.book_id), bytesOf(id), "a chunk names its book as written");
      assert.notEqual(bsonKey(doc._id), bsonKey({ "1": 1, b: 1 }), "keys tell the two orders apart");
    }),
  );
});
