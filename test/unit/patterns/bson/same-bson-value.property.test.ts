// sameBsonValue decides most comparisons by walking both values; whatever it decides, it says
// what comparing their bsonKey prints would say, for values of every shape the planners meet
// (numbers of each type, documents in orders JSON would not keep, undefined fields) and for
// the values a document may be mistaken for (a document spelled as Extended JSON).
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { BSON, Decimal128, Double, Int32, Long, ObjectId, Timestamp } from "mongodb";
import { bsonKey, sameBsonValue, verbatim } from "../../../../src/patterns/bson/bson-value.js";

const OBJECT_IDS = ["65a000000000000000000000", "65a000000000000000000001"].map((hex) => new ObjectId(hex));

/** Leaves drawn from a small pool, so that equal and nearly equal pairs come often. */
const leaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom("a", "b", "5", "", null, undefined, true, false),
  fc
    .integer({ min: -2, max: 2 })
    .chain((n) => fc.constantFrom(n, new Int32(n), new Double(n), Long.fromNumber(n), new Double(n + 0.5))),
  fc.constantFrom(-0, new Double(-0), NaN, new Double(NaN), 2 ** 31, Long.fromString("9007199254740993")),
  fc.constantFrom(...OBJECT_IDS, new Date(0), new Date(1000), new Date(NaN)),
  fc.constantFrom(Decimal128.fromString("5"), new Timestamp({ t: 1, i: 0 }), new BSON.MinKey()),
  // Documents spelled as another value's Extended JSON.
  fc.constantFrom({ $numberInt: "5" }, { $oid: OBJECT_IDS[0]!.toHexString() }, { $numberDouble: "-0.0" }),
);

const NAMES = ["a", "b", "1", "0", "$oid"];

const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("value"), { maxLength: 3 }),
    fc
      .uniqueArray(fc.tuple(fc.constantFrom(...NAMES), tie("value")), {
        selector: ([name]) => name,
        maxLength: 3,
      })
      .map((fields) => Object.fromEntries(fields)),
  ),
}));

/** The value as a read hands it over: numbers as typed objects, fields in their BSON order. */
function readBack(input: unknown): unknown {
  try {
    return verbatim(BSON.serialize({ v: input }, { ignoreUndefined: false })).v;
  } catch {
    return input; // a value BSON cannot hold as it is (an invalid date): compared unchanged
  }
}

void test("sameBsonValue says what comparing bsonKeys says, for any two values", () => {
  fc.assert(
    fc.property(value, value, (a, b) => {
      assert.equal(sameBsonValue(a, b), bsonKey(a) === bsonKey(b));
    }),
    { numRuns: 3000 },
  );
});

void test("sameBsonValue says what comparing bsonKeys says of a value and its read-back form", () => {
  fc.assert(
    fc.property(value, (a) => {
      const b = readBack(a);
      assert.equal(sameBsonValue(a, b), bsonKey(a) === bsonKey(b));
      assert.equal(sameBsonValue(b, a), bsonKey(a) === bsonKey(b));
    }),
    { numRuns: 1000 },
  );
});

void test("sameBsonValue tells apart documents whose fields come in other orders", () => {
  const bytes = BSON.serialize({ b: new Int32(1), a: new Int32(2) });
  // "1" after "b": an order JSON would not keep, recorded when read.
  const reordered = verbatim(Buffer.from("13000000106200010000001031000200000000", "hex"));
  assert.equal(sameBsonValue(verbatim(bytes), { b: 1, a: 2 }), true);
  assert.equal(sameBsonValue(verbatim(bytes), { a: 2, b: 1 }), false);
  assert.equal(sameBsonValue(reordered, { b: 1, "1": 2 }), false, "JS lists the integer-like name first");
  assert.equal(sameBsonValue(reordered, readBack(reordered)), true);
  assert.equal(bsonKey(reordered) === bsonKey({ b: 1, "1": 2 }), false);
});
