import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Decimal128, Double, Int32, Long, Timestamp } from "bson";
import { ServerError } from "../../../src/errors.js";
import { applyUpdate, isReplacement } from "../../../src/query/index.js";

const update = (doc: object, spec: object, isInsert = false) => applyUpdate(doc, spec, { isInsert });
const withCode = (code: number) => (error: unknown) => error instanceof ServerError && error.code === code;

void describe("applyUpdate: $set and $unset", () => {
  void it("never mutates the input document", () => {
    const doc = { _id: 1, a: { b: 1 }, list: [1] };
    update(doc, { $set: { "a.b": 2 }, $push: { list: 2 } });
    assert.deepEqual(doc, { _id: 1, a: { b: 1 }, list: [1] });
  });

  void it("creates intermediate documents for a dotted path", () => {
    assert.deepEqual(update({ _id: 1 }, { $set: { "a.b.c": 1 } }), { _id: 1, a: { b: { c: 1 } } });
  });

  void it("pads an array with nulls when setting past its end", () => {
    assert.deepEqual(update({ _id: 1, a: [1] }, { $set: { "a.3": 4 } }), { _id: 1, a: [1, null, null, 4] });
  });

  void it("adds new fields in lexicographic order, as mongod 5.0+ does", () => {
    assert.deepEqual(Object.keys(update({ _id: 1 }, { $set: { b: 1, a: 1 } })), ["_id", "a", "b"]);
  });

  void it("removes a field with $unset and leaves a null for an array element", () => {
    assert.deepEqual(update({ _id: 1, a: 1, b: [1, 2] }, { $unset: { a: "", "b.0": "" } }), {
      _id: 1,
      b: [null, 2],
    });
  });

  void it("refuses to create a field inside a scalar (PathNotViable)", () => {
    assert.throws(() => update({ _id: 1, a: 5 }, { $set: { "a.b": 1 } }), withCode(28));
  });
});

void describe("applyUpdate: $inc and $mul keep mongod's numeric types", () => {
  void it("keeps an Int32 field an Int32", () => {
    const result = update({ _id: 1, n: new Int32(1) }, { $inc: { n: 1 } });
    assert.ok(result.n instanceof Int32);
    assert.equal(result.n.value, 2);
  });

  void it("widens an Int32 that overflows to a Long", () => {
    const result = update({ _id: 1, n: new Int32(2 ** 31 - 1) }, { $inc: { n: 1 } });
    assert.ok(result.n instanceof Long);
    assert.equal(result.n.toString(), "2147483648");
  });

  void it("keeps a Long field a Long, exactly beyond 2^53", () => {
    const result = update({ _id: 1, n: Long.fromString("9007199254740993") }, { $inc: { n: new Int32(1) } });
    assert.ok(result.n instanceof Long);
    assert.equal(result.n.toString(), "9007199254740994");
  });

  void it("fails an int64 overflow, as mongod's SafeNum does", () => {
    assert.throws(() => update({ _id: 1, n: Long.MAX_VALUE }, { $inc: { n: 1 } }), withCode(2));
  });

  void it("becomes a double when a double is added, and stays one when the sum is integral", () => {
    assert.deepEqual(update({ _id: 1, n: new Int32(1) }, { $inc: { n: 0.5 } }).n, new Double(1.5));
    assert.equal(update({ _id: 1, n: 1 }, { $inc: { n: 0.5 } }).n, 1.5);
    const integral = update({ _id: 1, n: new Int32(1) }, { $inc: { n: new Double(1) } });
    assert.ok(integral.n instanceof Double);
    assert.equal(integral.n.value, 2);
  });

  void it("adds to a Decimal128 as a Decimal128", () => {
    const result = update({ _id: 1, n: Decimal128.fromString("1.5") }, { $inc: { n: 1 } });
    assert.ok(result.n instanceof Decimal128);
    assert.equal(result.n.toString(), "2.5");
  });

  void it("sets a missing field to the increment", () => {
    assert.deepEqual(update({ _id: 1 }, { $inc: { n: 5 } }), { _id: 1, n: 5 });
  });

  void it("rejects $inc on a string field with TypeMismatch", () => {
    assert.throws(() => update({ _id: 1, s: "x" }, { $inc: { s: 1 } }), withCode(14));
  });

  void it("rejects a non-numeric increment with TypeMismatch", () => {
    assert.throws(() => update({ _id: 1, n: 1 }, { $inc: { n: "1" } }), withCode(14));
  });

  void it("multiplies with $mul and sets a missing field to zero", () => {
    assert.deepEqual(update({ _id: 1, n: 3 }, { $mul: { n: 4, m: 2 } }), { _id: 1, m: 0, n: 12 });
  });
});

void describe("applyUpdate: $min, $max, $rename, $currentDate", () => {
  void it("keeps the smaller value with $min and the larger with $max, across numeric types", () => {
    assert.deepEqual(
      update({ _id: 1, lo: 5, hi: 5 }, { $min: { lo: Long.fromNumber(3) }, $max: { hi: 4 } }),
      {
        _id: 1,
        lo: Long.fromNumber(3),
        hi: 5,
      },
    );
  });

  void it("moves a value to another path with $rename", () => {
    assert.deepEqual(update({ _id: 1, a: 1 }, { $rename: { a: "b.c" } }), { _id: 1, b: { c: 1 } });
  });

  void it("ignores $rename of a missing field", () => {
    assert.deepEqual(update({ _id: 1 }, { $rename: { a: "b" } }), { _id: 1 });
  });

  void it("sets the current date, or a timestamp when asked", () => {
    const result = update({ _id: 1 }, { $currentDate: { d: true, t: { $type: "timestamp" } } });
    assert.ok(result.d instanceof Date);
    assert.ok(result.t instanceof Timestamp);
  });
});

void describe("applyUpdate: $setOnInsert", () => {
  void it("applies $setOnInsert when the document is an upsert seed", () => {
    assert.deepEqual(update({ _id: 1 }, { $setOnInsert: { created: true } }, true), {
      _id: 1,
      created: true,
    });
  });

  void it("ignores $setOnInsert when the document already existed", () => {
    assert.deepEqual(update({ _id: 1 }, { $setOnInsert: { created: true }, $set: { a: 1 } }), {
      _id: 1,
      a: 1,
    });
  });
});

void describe("applyUpdate: validation", () => {
  void it("rejects an unknown operator with FailedToParse", () => {
    assert.throws(() => update({ _id: 1 }, { $bogus: { a: 1 } }), withCode(9));
  });

  void it("rejects two operators on overlapping paths with ConflictingUpdateOperators", () => {
    assert.throws(() => update({ _id: 1 }, { $set: { a: 1 }, $inc: { "a.b": 1 } }), withCode(40));
    assert.throws(() => update({ _id: 1 }, { $set: { a: 1 }, $setOnInsert: { a: 2 } }, true), withCode(40));
  });

  void it("rejects a change of _id with ImmutableField", () => {
    assert.throws(() => update({ _id: 1 }, { $set: { _id: 2 } }), withCode(66));
  });

  void it("allows setting _id to the value it already has", () => {
    assert.deepEqual(update({ _id: 1, a: 1 }, { $set: { _id: 1 } }), { _id: 1, a: 1 });
  });
});

void describe("applyUpdate: replacement and pipeline updates", () => {
  void it("recognises a replacement document by its lack of operators", () => {
    assert.ok(isReplacement({ a: 1 }));
    assert.equal(isReplacement({ $set: { a: 1 } }), false);
    assert.equal(isReplacement([{ $set: { a: 1 } }]), false);
  });

  void it("replaces the document but keeps its _id first", () => {
    assert.deepEqual(update({ _id: 7, a: 1 }, { b: 2 }), { _id: 7, b: 2 });
  });

  void it("runs a pipeline-style update and keeps untouched numeric types", () => {
    const result = applyUpdate(
      { _id: 1, n: new Int32(2), items: [1, 2] },
      [{ $set: { count: { $size: "$items" } } }],
      {
        isInsert: false,
      },
    );
    assert.deepEqual(result, { _id: 1, n: new Int32(2), items: [1, 2], count: 2 });
  });

  void it("rejects a stage not allowed in an update pipeline", () => {
    assert.throws(() => applyUpdate({ _id: 1 }, [{ $match: {} }], { isInsert: false }), withCode(72));
  });
});
