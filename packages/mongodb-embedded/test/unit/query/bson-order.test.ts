import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  Binary,
  BSONRegExp,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
} from "bson";
import fc from "fast-check";
import { compareValues, valuesEqual } from "../../../src/query/index.js";

void describe("compareValues", () => {
  void it("orders one value of each BSON type in MongoDB's type order", () => {
    const ascending = [
      new MinKey(),
      null,
      1,
      "a",
      { a: 1 },
      [1],
      new Binary(Buffer.from("x")),
      new ObjectId("000000000000000000000001"),
      false,
      new Date(0),
      new Timestamp({ t: 1, i: 1 }),
      /a/,
      new MaxKey(),
    ];
    for (let i = 1; i < ascending.length; i++) {
      assert.ok(compareValues(ascending[i - 1], ascending[i]) < 0, `position ${i - 1} < ${i}`);
      assert.ok(compareValues(ascending[i], ascending[i - 1]) > 0, `position ${i} > ${i - 1}`);
    }
  });

  void it("compares numbers by value whatever their BSON representation", () => {
    assert.ok(compareValues(new Int32(2), 10) < 0);
    assert.ok(compareValues(Long.fromNumber(10), new Double(9.5)) > 0);
    assert.ok(compareValues(Decimal128.fromString("2.5"), new Int32(3)) < 0);
    assert.equal(compareValues(Long.fromString("9007199254740993"), Long.fromString("9007199254740993")), 0);
    assert.ok(compareValues(Long.fromString("9007199254740993"), 9007199254740992) > 0);
  });

  void it("sorts NaN below every other number", () => {
    assert.ok(compareValues(NaN, -Infinity) < 0);
    assert.equal(compareValues(NaN, new Double(NaN)), 0);
  });

  void it("compares embedded documents field by field, names included", () => {
    assert.ok(compareValues({ a: 1 }, { a: 2 }) < 0);
    assert.ok(compareValues({ a: 1 }, { b: 1 }) < 0);
    assert.ok(compareValues({ a: 1 }, { a: 1, b: 1 }) < 0);
  });

  void it("compares ObjectIds by their bytes and timestamps by time then increment", () => {
    assert.ok(
      compareValues(new ObjectId("00000000000000000000000a"), new ObjectId("0000000000000000000000a0")) < 0,
    );
    assert.ok(compareValues(new Timestamp({ t: 1, i: 9 }), new Timestamp({ t: 2, i: 1 })) < 0);
  });

  void it("compares regexes by pattern then flags, BSONRegExp and RegExp alike", () => {
    assert.equal(compareValues(new BSONRegExp("a", "i"), /a/i), 0);
  });
});

void describe("valuesEqual", () => {
  void it("treats 1, Int32(1), Long(1), Double(1.0) and Decimal128(1) as equal", () => {
    const ones = [1, new Int32(1), Long.fromNumber(1), new Double(1), Decimal128.fromString("1")];
    for (const a of ones) for (const b of ones) assert.ok(valuesEqual(a, b));
  });

  void it("finds documents with the same fields in another order unequal", () => {
    assert.equal(valuesEqual({ a: 1, b: 2 }, { b: 2, a: 1 }), false);
  });

  void it("finds arrays equal element by element only", () => {
    assert.ok(valuesEqual([1, new Int32(2)], [1, 2]));
    assert.equal(valuesEqual([1, 2], [2, 1]), false);
  });
});

const bsonValue = fc.letrec((tie) => ({
  scalar: fc.oneof(
    fc.constant(null),
    fc.integer({ min: -5, max: 5 }),
    fc.double({ min: -5, max: 5, noNaN: true }),
    fc.integer({ min: -5, max: 5 }).map((n) => new Int32(n)),
    fc.integer({ min: -5, max: 5 }).map((n) => Long.fromNumber(n)),
    fc.string({ maxLength: 3 }),
    fc.boolean(),
    fc.integer({ min: 0, max: 5 }).map((n) => new Date(n)),
    fc.integer({ min: 0, max: 3 }).map((n) => new ObjectId(n.toString(16).padStart(24, "0"))),
  ),
  value: fc.oneof(
    { depthSize: "small" },
    tie("scalar"),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "b"), tie("value"), { maxKeys: 2 }),
  ),
})).value;

void describe("compareValues as a total order", () => {
  void it("is antisymmetric", () => {
    fc.assert(
      fc.property(
        bsonValue,
        bsonValue,
        (a, b) => Math.sign(compareValues(a, b)) === -Math.sign(compareValues(b, a)),
      ),
    );
  });

  void it("is transitive", () => {
    fc.assert(
      fc.property(bsonValue, bsonValue, bsonValue, (a, b, c) => {
        const [x, y, z] = [a, b, c].sort(compareValues);
        return compareValues(x, z) <= 0 && compareValues(x, y) <= 0 && compareValues(y, z) <= 0;
      }),
    );
  });

  void it("does not change when numbers change representation", () => {
    fc.assert(
      fc.property(bsonValue, bsonValue, (a, c) => {
        const b = asLongs(a);
        return compareValues(a, b) === 0 && Math.sign(compareValues(b, c)) === Math.sign(compareValues(a, c));
      }),
    );
  });
});

/** The same value with every integral JS number stored as a Long. */
function asLongs(value: unknown): unknown {
  if (typeof value === "number" && Number.isInteger(value)) return Long.fromNumber(value);
  if (Array.isArray(value)) return value.map(asLongs);
  if (value !== null && typeof value === "object" && value.constructor === Object) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asLongs(v)]));
  }
  return value;
}
