import { test } from "node:test";
import assert from "node:assert/strict";
import { BSON, Decimal128, Double, Int32, Long, ObjectId, Timestamp } from "mongodb";
import {
  bsonKey,
  describeValue,
  numberValue,
  printableValue,
  printedKey,
  relaxedExtendedJson,
  sameBsonValue,
  sequenceNumber,
} from "../../../../src/patterns/bson/bson-value.js";

void test("numberValue reads a number of any type the driver promotes, and nothing else", () => {
  assert.equal(numberValue(3), 3);
  assert.equal(numberValue(new Int32(-4)), -4);
  assert.equal(numberValue(new Double(2.5)), 2.5);
  assert.equal(numberValue(Long.fromNumber(2 ** 40)), 2 ** 40);
  assert.equal(
    numberValue(Long.fromString("9007199254740993")),
    undefined,
    "past 2^53 a JS number would round it",
  );
  assert.equal(numberValue(Decimal128.fromString("1")), undefined);
  assert.equal(numberValue("1"), undefined);
  assert.equal(numberValue(null), undefined);
});

void test("a Timestamp is no number, though the bson library makes it a Long", () => {
  const timestamp = new Timestamp({ t: 1, i: 2 });
  assert.equal(numberValue(timestamp), undefined);
  assert.equal(sequenceNumber(timestamp), undefined);
  assert.notEqual(bsonKey(timestamp), bsonKey(2 ** 32 + 2));
});

void test("sequenceNumber takes integers from 0 whatever their type", () => {
  assert.equal(sequenceNumber(new Int32(3)), 3);
  assert.equal(sequenceNumber(Long.fromNumber(7)), 7);
  assert.equal(sequenceNumber(new Double(2)), 2);
  assert.equal(sequenceNumber(new Double(2.5)), undefined);
  assert.equal(sequenceNumber(new Int32(-1)), undefined);
  assert.equal(sequenceNumber("2"), undefined);
});

void test("bsonKey prints strings, int32s and ObjectIds as canonical Extended JSON does", () => {
  const canonical = (value: unknown) => BSON.EJSON.stringify({ v: value }, { relaxed: false });
  for (const text of ["", "a", 'q"\\\u2028é\n', "🎉"]) assert.equal(bsonKey(text), canonical(text));
  for (const n of [0, -1, 7, 2 ** 31 - 1, -(2 ** 31)]) assert.equal(bsonKey(n), canonical(n));
  for (const n of [-0, 2 ** 31, -(2 ** 31) - 1, 0.5]) assert.equal(bsonKey(n), canonical(n));
  assert.equal(bsonKey(new Int32(7)), canonical(7));
  for (const hex of ["65a000000000000000000000", "ffffffffffffffffffffffff"])
    assert.equal(bsonKey(new ObjectId(hex)), canonical(new ObjectId(hex)));
});

void test("bsonKey compares numbers by value, as MongoDB does, and prints them as the driver's promotion did", () => {
  const five = [5, new Int32(5), Long.fromNumber(5), new Double(5)];
  for (const value of five) assert.equal(bsonKey(value), '{"v":{"$numberInt":"5"}}');
  assert.equal(bsonKey({ a: [new Int32(1), { b: new Double(1) }] }), bsonKey({ a: [1, { b: 1 }] }));
  assert.notEqual(bsonKey(5), bsonKey(5.5));
  assert.notEqual(bsonKey(5), bsonKey("5"));
  assert.notEqual(bsonKey({ a: 1, b: 2 }), bsonKey({ b: 2, a: 1 }), "field order still counts");
});

void test("keys and values in messages show a number read verbatim as its number", () => {
  const id = new ObjectId("65a000000000000000000000");
  assert.equal(printedKey({ book_id: Long.fromNumber(12), seq: new Int32(0) }), '{"book_id":12,"seq":0}');
  assert.equal(printedKey(id), JSON.stringify(id));
  assert.equal(describeValue(new Double(0.25)), "a number (0.25)");
  assert.equal(describeValue(BSON.Long.fromString("9007199254740993")), "a Long");
});

void test("an int64 past 2^53 prints with every digit, not as its two halves nor rounded to a double", () => {
  const wide = Long.fromString("9007199254740993");
  const key = { book_id: wide, seq: new Int32(0) };
  assert.deepEqual(printableValue(key), { book_id: { $numberLong: "9007199254740993" }, seq: 0 });
  assert.equal(printedKey(key), '{"book_id":{"$numberLong":"9007199254740993"},"seq":0}');
  assert.equal(printedKey([Long.fromString("-9007199254740993")]), '[{"$numberLong":"-9007199254740993"}]');
  assert.deepEqual(relaxedExtendedJson(key), { book_id: { $numberLong: "9007199254740993" }, seq: 0 });
});

void test("relaxed Extended JSON keeps its form for every other value: numbers as numbers, $oid, $date", () => {
  const id = new ObjectId("65a000000000000000000000");
  assert.deepEqual(relaxedExtendedJson({ a: Long.fromNumber(12), b: new Double(0.5), c: id }), {
    a: 12,
    b: 0.5,
    c: { $oid: "65a000000000000000000000" },
  });
  assert.deepEqual(relaxedExtendedJson(new Date("2026-01-02T00:00:00Z")), { $date: "2026-01-02T00:00:00Z" });
});

void test("sameBsonValue says of arrays what their keys say, those of different lengths included", () => {
  const reviews = (n: number) => Array.from({ length: n }, (_, i) => ({ review_id: new Int32(i), stars: 5 }));
  const pairs: [unknown[], unknown[]][] = [
    [reviews(10), reviews(11)],
    [reviews(10), reviews(10)],
    [[new Int32(1)], [new Double(1)]],
    [[1], [1, 1]],
    [[], []],
    [[{ a: 1, b: 2 }], [{ b: 2, a: 1 }]],
  ];
  for (const [a, b] of pairs) assert.equal(sameBsonValue(a, b), bsonKey(a) === bsonKey(b));
  assert.equal(sameBsonValue(reviews(10), reviews(11)), false);
  assert.equal(sameBsonValue([new Int32(1)], [new Double(1)]), true);
});
