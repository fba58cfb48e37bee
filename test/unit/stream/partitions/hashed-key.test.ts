// The partition hash is mongod's hashed-index hash: the fixed vectors are those of mongod's
// own unit test (src/mongo/db/hasher_test.cpp), so that a server's $toHashedIndexKey and the
// sidecar agree on every key, in every process and version.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { BSON } from "mongodb";
import {
  hashedIndexKey,
  partitionOf,
  UnhashableKeyError,
} from "../../../../src/stream/partitions/hashed-key.js";

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

const VECTORS: [string, unknown, bigint][] = [
  ["int32 42", new BSON.Int32(42), -944302157085130861n],
  ["double 42.123", new BSON.Double(42.123), -944302157085130861n],
  ["int64 42", BSON.Long.fromNumber(42), -944302157085130861n],
  ["JS number 42", 42, -944302157085130861n],
  ["0", 0, 4854801880128277513n],
  ["0.456", 0.456, 4854801880128277513n],
  ["NaN", NaN, 4854801880128277513n],
  ["1.987", 1.987, 5902408780260971510n],
  ["-1.789", -1.789, 1140205862565771219n],
  ["int32 min", INT32_MIN, 6165898260261354870n],
  ["int32 max", new BSON.Int32(INT32_MAX), 1143184177162245883n],
  ["largest double", Number.MAX_VALUE, 921523596458303250n],
  ["int64 max", BSON.Long.MAX_VALUE, 921523596458303250n],
  ["smallest double", -Number.MAX_VALUE, 4532067210535695462n],
  ["int64 min", BSON.Long.MIN_VALUE, 4532067210535695462n],
  ["null", null, 2338878944348059895n],
  ["'abc'", "abc", 8478485326885698097n],
  ["''", "", 2049396243249673340n],
  ["ObjectId 0102...", new BSON.ObjectId("010203040506070809101112"), -5588663249627035708n],
  ["ObjectId 0000...", new BSON.ObjectId("000000000000000000000000"), -4293118519463489418n],
  ["true", true, 6405873908747105701n],
  ["false", false, 6289544573401934092n],
  ["epoch", new Date(0), -1178696894582842035n],
];

for (const [name, value, expected] of VECTORS) {
  void test(`hashes ${name} as mongod does`, () => {
    assert.equal(hashedIndexKey(value), expected);
  });
}

void test("a missing key hashes as null, as $toHashedIndexKey of a missing field does", () => {
  assert.equal(hashedIndexKey(undefined), 2338878944348059895n);
});

void test("the partition is the hash modulo the count, never negative", () => {
  // -944302157085130861 = -59018884817820679 * 16 + 3
  assert.equal(partitionOf(42, 16), 3);
  // 4854801880128277513 = 303425117508017344 * 16 + 9
  assert.equal(partitionOf(0, 16), 9);
  assert.equal(partitionOf("abc", 1), 0);
});

void test("an integer falls in one partition whatever its BSON width", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: INT32_MIN, max: INT32_MAX }),
      fc.integer({ min: 1, max: 64 }),
      (n, count) => {
        const partition = partitionOf(new BSON.Int32(n), count);
        assert.equal(partitionOf(BSON.Long.fromNumber(n), count), partition);
        assert.equal(partitionOf(new BSON.Double(n), count), partition);
        assert.ok(partition >= 0 && partition < count);
      },
    ),
  );
});

void test("sequential ids spread evenly over 16 partitions", () => {
  const counts = new Array<number>(16).fill(0);
  for (let id = 0; id < 16_000; id++) counts[partitionOf(id, 16)]! += 1;
  // 1,000 expected in each; a binomial's standard deviation is about 31.
  for (const count of counts) assert.ok(count > 850 && count < 1150, `${counts.join(",")}`);
});

void test("a document or an array is refused with the key in the error", () => {
  assert.throws(
    () => hashedIndexKey({ a: 1 }),
    (error: unknown) =>
      error instanceof UnhashableKeyError && error.context.key === '{"a":{"$numberInt":"1"}}',
  );
  assert.throws(() => hashedIndexKey([1]), UnhashableKeyError);
});
