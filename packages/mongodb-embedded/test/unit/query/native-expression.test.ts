import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BSON, Decimal128, Double, Int32, Long, type Document } from "bson";
import { ServerError } from "../../../src/errors.js";
import { compileExprPredicate } from "../../../src/query/expression.js";
import { compileNativeExpression } from "../../../src/query/native-expression.js";

function evaluate(expression: unknown, doc: Document = {}, variables: Document = {}): unknown {
  const compiled = compileNativeExpression(expression, variables);
  assert.ok(compiled, `expected ${JSON.stringify(expression)} to compile natively`);
  return compiled(doc);
}

/** Asserts that evaluating fails with mongod's code and message. */
function assertFails(expression: unknown, doc: Document, code: number, message: string): void {
  assert.throws(
    () => evaluate(expression, doc),
    (error: unknown) => error instanceof ServerError && error.code === code && error.message === message,
  );
}

const typeOf = (expression: unknown, doc: Document = {}): unknown => evaluate({ $type: [expression] }, doc);

void describe("native expressions: field paths", () => {
  void it("a path over an array of documents yields what each document holds, skipping the rest", () => {
    const doc = { a: [{ b: 1 }, { c: 2 }, { b: [3, 4] }, 5, [{ b: 6 }]] };
    assert.deepEqual(evaluate("$a.b", doc), [1, [3, 4]]);
  });

  void it("a missing field is missing, not null, and a prototype's property is not a field", () => {
    assert.equal(typeOf("$absent"), "missing");
    assert.equal(typeOf("$n", { n: null }), "null");
    assert.equal(typeOf("$constructor", {}), "missing");
    assert.equal(typeOf("$a.b", { a: 5 }), "missing");
  });

  void it("reads $$ROOT, let variables and paths below them", () => {
    const doc = { x: 1 };
    assert.equal(evaluate("$$ROOT", doc), doc);
    assert.equal(evaluate("$$CURRENT.x", doc), 1);
    assert.deepEqual(evaluate("$$limits.max", {}, { limits: { max: 7 } }), 7);
  });

  void it("an array literal turns a missing element into null", () => {
    assert.deepEqual(evaluate(["$absent", 1]), [null, 1]);
  });

  void it("an expression object leaves out fields whose value is missing", () => {
    assert.deepEqual(evaluate({ a: "$x", b: "$absent" }, { x: 2 }), { a: 2 });
  });
});

void describe("native expressions: comparisons", () => {
  void it("numbers are equal whatever their BSON type", () => {
    const doc = { i: new Int32(5), l: Long.fromNumber(5), d: new Double(5), m: Decimal128.fromString("5") };
    assert.equal(evaluate({ $eq: ["$i", "$l"] }, doc), true);
    assert.equal(evaluate({ $eq: ["$d", "$m"] }, doc), true);
    assert.equal(evaluate({ $lt: ["$i", new Double(5.5)] }, doc), true);
  });

  void it("missing sorts below null and equals only missing", () => {
    assert.equal(evaluate({ $eq: ["$absent", null] }), false);
    assert.equal(evaluate({ $lt: ["$absent", null] }), true);
    assert.equal(evaluate({ $eq: ["$absent", "$alsoAbsent"] }), true);
    assert.equal(evaluate({ $ne: ["$n", null] }, { n: null }), false);
  });

  void it("values of different types compare by BSON type order", () => {
    assert.equal(evaluate({ $gt: ["a", 1000] }), true);
    assert.equal(evaluate({ $gt: [[1], { a: 1 }] }), true);
    assert.equal(evaluate({ $gte: [null, "$absent"] }), true);
  });

  void it("$in compares by value and refuses a non-array", () => {
    assert.equal(evaluate({ $in: [new Int32(2), [1, Long.fromNumber(2)]] }), true);
    assert.equal(evaluate({ $in: ["$absent", [null]] }), false);
    assertFails(
      { $in: [1, "$absent"] },
      {},
      40081,
      "$in requires an array as a second argument, found: missing",
    );
  });
});

void describe("native expressions: booleans and conditions", () => {
  void it("truthiness: zero of any numeric type, null and missing are false; empty strings and arrays true", () => {
    assert.equal(evaluate({ $or: [0, Long.fromNumber(0), new Double(0), null, "$absent", false] }), false);
    assert.equal(evaluate({ $and: ["", [], {}, new Int32(-1)] }), true);
    assert.equal(evaluate({ $not: ["$absent"] }), true);
  });

  void it("$and and $or stop at the first deciding operand", () => {
    assert.equal(evaluate({ $and: [false, { $size: "$absent" }] }), false);
    assert.equal(evaluate({ $or: [true, { $size: "$absent" }] }), true);
  });

  void it("$cond takes an array or named branches", () => {
    assert.equal(evaluate({ $cond: ["$flag", "yes", "no"] }, { flag: 1 }), "yes");
    assert.equal(evaluate({ $cond: { if: "$flag", then: "yes", else: "no" } }, { flag: 0 }), "no");
  });

  void it("$ifNull answers the first non-nullish operand, else the last as it is", () => {
    assert.equal(evaluate({ $ifNull: ["$absent", null, 3] }), 3);
    assert.equal(evaluate({ $ifNull: [null, "$absent"] }), undefined);
  });

  void it("$type names every BSON type as mongod does", () => {
    const doc = { i: new Int32(1), l: Long.fromNumber(1), d: new Double(1), m: Decimal128.fromString("1") };
    assert.deepEqual(
      ["$i", "$l", "$d", "$m", [1], { a: 1 }, "s", true, null].map((value) => typeOf(value, doc)),
      ["int", "long", "double", "decimal", "array", "object", "string", "bool", "null"],
    );
  });
});

void describe("native expressions: arrays", () => {
  void it("$size counts an array and fails on anything else, missing included", () => {
    assert.equal(evaluate({ $size: "$a" }, { a: [1, 2] }), 2);
    assertFails(
      { $size: "$absent" },
      {},
      17124,
      "The argument to $size must be an array, but was of type: missing",
    );
    assertFails(
      { $size: "$s" },
      { s: "x" },
      17124,
      "The argument to $size must be an array, but was of type: string",
    );
  });

  void it("$arrayElemAt counts negative indices from the end and is missing out of bounds", () => {
    const doc = { a: [1, 2, 3] };
    assert.equal(evaluate({ $arrayElemAt: ["$a", -1] }, doc), 3);
    assert.equal(evaluate({ $arrayElemAt: ["$a", Long.fromNumber(1)] }, doc), 2);
    assert.equal(typeOf({ $arrayElemAt: ["$a", 3] }, doc), "missing");
    assert.equal(typeOf({ $arrayElemAt: ["$a", -4] }, doc), "missing");
    assert.equal(evaluate({ $arrayElemAt: ["$absent", 0] }), null);
    assert.equal(evaluate({ $arrayElemAt: ["$a", null] }, doc), null);
  });

  void it("$slice takes from the front, from the back, and from a position, clamping as mongod does", () => {
    const doc = { a: [1, 2, 3, 4] };
    assert.deepEqual(evaluate({ $slice: ["$a", 2] }, doc), [1, 2]);
    assert.deepEqual(evaluate({ $slice: ["$a", -3] }, doc), [2, 3, 4]);
    assert.deepEqual(evaluate({ $slice: ["$a", -9] }, doc), [1, 2, 3, 4]);
    assert.deepEqual(evaluate({ $slice: ["$a", 9] }, doc), [1, 2, 3, 4]);
    assert.deepEqual(evaluate({ $slice: ["$a", 0] }, doc), []);
    assert.deepEqual(evaluate({ $slice: ["$a", 1, 2] }, doc), [2, 3]);
    assert.deepEqual(evaluate({ $slice: ["$a", -2, 9] }, doc), [3, 4]);
    assert.deepEqual(evaluate({ $slice: ["$a", -9, 1] }, doc), [1]);
    assert.deepEqual(evaluate({ $slice: ["$a", 4, 1] }, doc), []);
    assert.deepEqual(evaluate({ $slice: ["$a", Long.fromNumber(1), new Double(1)] }, doc), [2]);
    assert.equal(evaluate({ $slice: ["$absent", 1] }), null);
    assert.equal(evaluate({ $slice: ["$a", null, 1] }, doc), null);
    assert.equal(evaluate({ $slice: ["$a", 1, "$absent"] }, doc), null);
  });

  void it("$slice refuses a non-array, non-numbers, non-integers and a count that is not positive", () => {
    const doc = { a: [1], s: "x" };
    assertFails(
      { $slice: ["$s", 1] },
      doc,
      28724,
      "First argument to $slice must be an array, but is of type: string",
    );
    assertFails(
      { $slice: ["$a", "1"] },
      doc,
      28725,
      "Second argument to $slice must be a numeric value, but is of type: string",
    );
    assertFails(
      { $slice: ["$a", new Double(0.5)] },
      doc,
      28726,
      "Second argument to $slice can't be represented as a 32-bit integer: 0.5",
    );
    assertFails(
      { $slice: ["$a", 0, "1"] },
      doc,
      28727,
      "Third argument to $slice must be numeric, but is of type: string",
    );
    assertFails(
      { $slice: ["$a", 0, new Double(1.5)] },
      doc,
      28728,
      "Third argument to $slice can't be represented as a 32-bit integer: 1.5",
    );
    assertFails({ $slice: ["$a", 0, 0] }, doc, 28729, "Third argument to $slice must be positive: 0");
  });

  void it("$arrayElemAt refuses a non-array, a non-number and a non-integral index", () => {
    const doc = { a: [1], s: "x" };
    assertFails(
      { $arrayElemAt: ["$s", 0] },
      doc,
      28689,
      "$arrayElemAt's first argument must be an array, but is string",
    );
    assertFails(
      { $arrayElemAt: ["$a", "0"] },
      doc,
      28690,
      "$arrayElemAt's second argument must be a numeric value, but is string",
    );
    assertFails(
      { $arrayElemAt: ["$a", new Double(1.5)] },
      doc,
      28691,
      "$arrayElemAt's second argument must be representable as a 32-bit integer: 1.5",
    );
    assertFails(
      { $arrayElemAt: ["$a", Long.fromNumber(2 ** 31)] },
      doc,
      28691,
      "$arrayElemAt's second argument must be representable as a 32-bit integer: 2.14748e+09",
    );
  });

  void it("$first is missing for an empty array and names its one argument in errors", () => {
    assert.equal(typeOf({ $first: [[]] }), "missing");
    assert.equal(evaluate({ $first: "$absent" }), null);
    assertFails({ $first: "$s" }, { s: "x" }, 28689, "$first's argument must be an array, but is string");
  });

  void it("$concatArrays is null at the first nullish operand and refuses other non-arrays", () => {
    assert.deepEqual(evaluate({ $concatArrays: [[1], [2, 3]] }), [1, 2, 3]);
    assert.equal(evaluate({ $concatArrays: [[1], "$absent", "x"] }), null);
    assertFails({ $concatArrays: [[1], "x"] }, {}, 28664, "$concatArrays only supports arrays, not string");
  });

  void it("$objectToArray lists fields in order, null for nullish, and refuses non-documents", () => {
    assert.deepEqual(evaluate({ $objectToArray: "$o" }, { o: { b: 1, a: 2 } }), [
      { k: "b", v: 1 },
      { k: "a", v: 2 },
    ]);
    assert.equal(evaluate({ $objectToArray: "$absent" }), null);
    assertFails(
      { $objectToArray: [[1]] },
      {},
      40390,
      "$objectToArray requires a document input, found: array",
    );
  });

  void it("$anyElementTrue needs an array", () => {
    assert.equal(evaluate({ $anyElementTrue: [[0, null, "$absent"]] }), false);
    assert.equal(evaluate({ $anyElementTrue: [[0, ""]] }), true);
    assertFails(
      { $anyElementTrue: ["$absent"] },
      {},
      17041,
      "$anyElementTrue's argument must be an array, but is missing",
    );
  });

  void it("$map binds $$this or its `as` name, nests, and turns missing results into null", () => {
    const doc = { rows: [{ k: 1 }, {}], inner: [10, 20] };
    assert.deepEqual(evaluate({ $map: { input: "$rows", in: "$$this.k" } }, doc), [1, null]);
    const nested = {
      $map: { input: "$rows", as: "row", in: { $map: { input: "$inner", in: ["$$row.k", "$$this"] } } },
    };
    assert.deepEqual(evaluate(nested, doc), [
      [
        [1, 10],
        [1, 20],
      ],
      [
        [null, 10],
        [null, 20],
      ],
    ]);
    assert.equal(evaluate({ $map: { input: "$absent", in: 1 } }), null);
    assertFails({ $map: { input: "x", in: 1 } }, {}, 16883, "input to $map must be an array not string");
  });

  void it("$filter keeps the elements whose condition is true", () => {
    const filter = { $filter: { input: "$a", as: "n", cond: { $gt: ["$$n", 1] } } };
    assert.deepEqual(evaluate(filter, { a: [1, 2, 3] }), [2, 3]);
    assert.equal(evaluate(filter, {}), null);
    assertFails(
      { $filter: { input: 5, cond: true } },
      {},
      28651,
      "input to $filter must be an array not int",
    );
  });

  void it("$max offers a lone array's elements, ignores nullish values and is null when none is left", () => {
    assert.equal(evaluate({ $max: [-1, null, "$absent"] }), -1);
    assert.deepEqual(
      evaluate({ $max: "$a" }, { a: [1, Long.fromNumber(7), new Double(3)] }),
      Long.fromNumber(7),
    );
    assert.equal(evaluate({ $max: [[]] }), null);
    assert.deepEqual(evaluate({ $max: [[1, 5], 2] }), [1, 5]);
    assert.equal(evaluate({ $min: [3, "$absent", 2] }), 2);
  });
});

void describe("native expressions: strings, numbers and fields", () => {
  void it("$split splits on a string and is null for nullish operands", () => {
    assert.deepEqual(evaluate({ $split: ["a.b..c", "."] }), ["a", "b", "", "c"]);
    assert.equal(evaluate({ $split: ["$absent", "."] }), null);
    assert.equal(evaluate({ $split: ["a", null] }), null);
  });

  void it("$split refuses non-strings and an empty separator", () => {
    assertFails(
      { $split: [5, "."] },
      {},
      40085,
      "$split requires an expression that evaluates to a string as a first argument, found: int",
    );
    assertFails(
      { $split: ["a", 5] },
      {},
      40086,
      "$split requires an expression that evaluates to a string as a second argument, found: int",
    );
    assertFails({ $split: ["a", ""] }, {}, 40087, "$split requires a non-empty separator");
  });

  void it("$add keeps the narrowest type that holds the sum", () => {
    assert.equal(evaluate({ $add: [new Int32(1), 2] }), 3);
    assert.deepEqual(evaluate({ $add: [2 ** 31 - 1, new Int32(1)] }), Long.fromNumber(2 ** 31));
    assert.deepEqual(evaluate({ $add: [Long.fromNumber(1), new Double(0.5)] }), new Double(1.5));
    assert.deepEqual(evaluate({ $add: [Long.MAX_VALUE, 1] }), new Double(2 ** 63));
    assert.equal(evaluate({ $add: [1, null, "x"] }), null);
    assertFails({ $add: [1, "x"] }, {}, 16554, "$add only supports numeric or date types, not string");
  });

  void it("$getField reads one field by its literal name", () => {
    const doc = { o: { "a.b": 1, v: null } };
    assert.equal(evaluate({ $getField: { field: "a.b", input: "$o" } }, doc), 1);
    assert.equal(evaluate({ $getField: { field: "v", input: "$o" } }, doc), null);
    assert.equal(typeOf({ $getField: { field: "v", input: "$absent" } }), "missing");
    assert.equal(evaluate({ $getField: { field: "v", input: null } }), null);
    assert.equal(typeOf({ $getField: { field: "v", input: 5 } }), "missing");
    assert.equal(evaluate({ $getField: "x" }, { x: 4 }), 4);
  });

  void it("$let binds its vars once, in the outer scope, for its in", () => {
    const doc = { a: 2, b: 3 };
    assert.equal(evaluate({ $let: { vars: { x: "$a", y: "$b" }, in: { $add: ["$$x", "$$y"] } } }, doc), 5);
    const shadowing = {
      $let: { vars: { x: 1 }, in: { $let: { vars: { x: { $add: ["$$x", 1] } }, in: "$$x" } } },
    };
    assert.equal(evaluate(shadowing), 2);
  });

  void it("$$REMOVE is the missing value", () => {
    assert.equal(typeOf({ $cond: [false, 1, "$$REMOVE"] }), "missing");
  });

  void it("$bsonSize gives a document's BSON size, null for null or missing", () => {
    const doc = { o: { a: "xyz" } };
    assert.equal(evaluate({ $bsonSize: "$o" }, doc), BSON.calculateObjectSize(doc.o));
    assert.equal(evaluate({ $bsonSize: { $literal: {} } }), 5);
    assert.equal(evaluate({ $bsonSize: "$absent" }), null);
    assert.equal(evaluate({ $bsonSize: null }), null);
    assertFails({ $bsonSize: "$o.a" }, doc, 31393, "$bsonSize requires a document input, found: string");
  });
});

void describe("native expressions: $convert to long", () => {
  const toLong = (input: unknown, extra: Document = {}) => ({ $convert: { input, to: "long", ...extra } });
  const fallbacks = { onError: -1, onNull: -2 };

  void it("parses a base-10 integer string with an optional sign", () => {
    assert.deepEqual(evaluate(toLong("12")), Long.fromNumber(12));
    assert.deepEqual(evaluate(toLong("-5")), Long.fromNumber(-5));
    assert.deepEqual(evaluate(toLong("+5")), Long.fromNumber(5));
    assert.deepEqual(evaluate(toLong("9223372036854775807")), Long.MAX_VALUE);
  });

  void it("answers onError for strings mongod's parser refuses", () => {
    for (const text of [" 12", "1.5", "0x10", "", "-", "12a", "9223372036854775808"])
      assert.equal(evaluate(toLong(text, fallbacks)), -1, text);
  });

  void it("answers onNull for null or missing input, else null", () => {
    assert.equal(evaluate(toLong("$absent", fallbacks)), -2);
    assert.equal(evaluate(toLong(null)), null);
  });

  void it("truncates doubles and converts bools and dates", () => {
    assert.deepEqual(evaluate(toLong(new Double(-2.7))), Long.fromNumber(-2));
    assert.deepEqual(evaluate(toLong(true)), Long.fromNumber(1));
    assert.deepEqual(evaluate(toLong(new Date(5))), Long.fromNumber(5));
  });

  void it("fails with ConversionFailure when there is no onError", () => {
    const failsWith = (input: unknown, message: string) =>
      assert.throws(
        () => evaluate(toLong(input)),
        (error: unknown) => error instanceof ServerError && error.code === 241 && error.message === message,
      );
    failsWith(
      "abc",
      "Failed to parse number 'abc' in $convert with no onError value: Did not consume any digits",
    );
    failsWith({ a: 1 }, "Unsupported conversion from object to long in $convert with no onError value");
    failsWith(
      new Double(NaN),
      "Attempt to convert NaN value to integer type in $convert with no onError value",
    );
    failsWith(
      new Double(1e20),
      "Conversion would overflow target type in $convert with no onError value: 1e+20",
    );
  });
});

void describe("native expressions: what stays with mingo", () => {
  void it("an unknown operator, a system variable or an unknown variable is not compiled natively", () => {
    assert.equal(compileNativeExpression({ $toUpper: "$s" }, {}), undefined);
    assert.equal(compileNativeExpression({ $eq: ["$$NOW", null] }, {}), undefined);
    assert.equal(compileNativeExpression({ $eq: ["$$nope", 1] }, {}), undefined);
    assert.equal(compileNativeExpression({ $convert: { input: "$s", to: "string" } }, {}), undefined);
    assert.equal(compileNativeExpression({ $eq: [1] }, {}), undefined);
  });

  void it("a filter still evaluates an expression the native compiler leaves to mingo", () => {
    const matches = compileExprPredicate({ $eq: [{ $toUpper: "$s" }, "AB"] });
    assert.equal(matches({ s: "ab" }), true);
    assert.equal(matches({ s: "x" }), false);
  });

  void it("a document with a date in $add is evaluated by mingo", () => {
    const matches = compileExprPredicate({ $gt: [{ $add: ["$at", 1000] }, "$at"] });
    assert.equal(matches({ at: new Date(0) }), true);
    assert.equal(matches({ at: new Int32(3) }), true);
  });

  void it("an undefined variable still fails as mongod does", () => {
    const matches = compileExprPredicate({ $eq: ["$$nope", 1] });
    assert.throws(
      () => matches({}),
      (error: unknown) => error instanceof ServerError && error.code === 17276,
    );
  });
});
