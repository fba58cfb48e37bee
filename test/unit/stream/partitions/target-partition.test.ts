// Corrections of the same documents share a partition: a book's and the chunks the sidecar
// numbered for it, a customer's folds and the buckets named after it, a product's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BSON } from "mongodb";
import type { CorrectionTarget, PatternRule } from "../../../../src/patterns/driver.js";
import { partitionOf } from "../../../../src/stream/partitions/hashed-key.js";
import { partitionKeyOf, partitionOfTarget } from "../../../../src/stream/partitions/target-partition.js";
import { bucketRule, outlierRule, subsetRule } from "../../patterns/support/rules.js";

const target = (
  rule: PatternRule,
  role: string,
  id: unknown,
  collection = rule.collection,
): CorrectionTarget => ({
  rule,
  role,
  collection,
  id,
});

void test("a book's chunks the sidecar numbered share the book's partition; a chunk of the seed's is its own", () => {
  const book = BSON.Long.fromNumber(7);
  const chunks = outlierRule.overflowCollection;
  assert.equal(partitionKeyOf(target(outlierRule, "source", book)), book);
  assert.equal(partitionKeyOf(target(outlierRule, "chunk", { book_id: book, seq: 3 }, chunks)), book);
  const seeds = new BSON.ObjectId("65a1b2c3d4e5f60718293a4b");
  assert.equal(partitionKeyOf(target(outlierRule, "chunk", seeds, chunks)), seeds);
  assert.equal(
    partitionOfTarget(target(outlierRule, "chunk", { book_id: 7, seq: 0 }, chunks), 16),
    partitionOf(7, 16),
  );
});

void test("a customer's folds share a partition, whatever the key's width; a bucket is partitioned by its _id", () => {
  const fold = (customerId: unknown) =>
    partitionOfTarget(target(bucketRule, "loose-key", { customerId }), 16);
  assert.equal(fold(123), partitionOf(123, 16));
  assert.equal(fold(BSON.Long.fromNumber(123)), partitionOf(123, 16));
  assert.equal(fold("c7"), partitionOf("c7", 16));
  assert.equal(partitionKeyOf(target(bucketRule, "bucket", "123_1700000000")), "123_1700000000");
});

void test("a product's corrections, plain or propagating a delete, are partitioned by the product", () => {
  assert.equal(partitionKeyOf(target(subsetRule, "source", "p1")), "p1");
  const deleted = { ...target(subsetRule, "deleted-entry", "p1"), detail: { entryId: 1, deletedId: 2 } };
  assert.equal(partitionOfTarget(deleted, 16), partitionOf("p1", 16));
});

void test("a document key is partitioned by its canonical Extended JSON, the same in every process", () => {
  const key = { region: "eu", n: 1 };
  assert.equal(
    partitionOfTarget(target(subsetRule, "source", key), 16),
    partitionOf('{"region":"eu","n":{"$numberInt":"1"}}', 16),
  );
});

void test("a target asked again, or among another partition count, gets that count's partition", () => {
  const book = target(outlierRule, "source", 12_345);
  for (const count of [16, 7, 16, 1, 7])
    assert.equal(partitionOfTarget(book, count), partitionOf(12_345, count), `${count} partitions`);
});
