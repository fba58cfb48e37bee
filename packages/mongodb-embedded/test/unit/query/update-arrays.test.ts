import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Int32, Long } from "bson";
import { ServerError } from "../../../src/errors.js";
import { applyUpdate } from "../../../src/query/index.js";

const update = (doc: object, spec: object, arrayFilters?: object[]) =>
  applyUpdate(doc, spec, { isInsert: false, arrayFilters });
const withCode = (code: number) => (error: unknown) => error instanceof ServerError && error.code === code;

void describe("applyUpdate: $push", () => {
  void it("appends in order, creating the array when the field is missing", () => {
    const once = update({ _id: 1 }, { $push: { h: { n: 1 } } });
    assert.deepEqual(update(once, { $push: { h: { n: 2 } } }), { _id: 1, h: [{ n: 1 }, { n: 2 }] });
  });

  void it("appends every $each element in order", () => {
    assert.deepEqual(update({ _id: 1, a: [1] }, { $push: { a: { $each: [3, 2] } } }), {
      _id: 1,
      a: [1, 3, 2],
    });
  });

  void it("sorts then slices with $each, $sort and $slice on a missing field", () => {
    const spec = { $push: { a: { $each: [{ d: 3 }, { d: 1 }, { d: 2 }], $sort: { d: -1 }, $slice: 2 } } };
    assert.deepEqual(update({ _id: 1 }, spec), { _id: 1, a: [{ d: 3 }, { d: 2 }] });
  });

  void it("keeps the last elements with a negative $slice", () => {
    assert.deepEqual(update({ _id: 1, a: [1, 2, 3] }, { $push: { a: { $each: [4], $slice: -2 } } }), {
      _id: 1,
      a: [3, 4],
    });
  });

  void it("inserts at $position", () => {
    assert.deepEqual(update({ _id: 1, a: [1, 4] }, { $push: { a: { $each: [2, 3], $position: 1 } } }), {
      _id: 1,
      a: [1, 2, 3, 4],
    });
  });

  void it("sorts whole elements with $sort: 1 across numeric types", () => {
    const result = update(
      { _id: 1, a: [Long.fromNumber(5), 1] },
      { $push: { a: { $each: [new Int32(3)], $sort: 1 } } },
    );
    assert.deepEqual(result.a, [1, new Int32(3), Long.fromNumber(5)]);
  });

  void it("rejects $push onto a non-array with BadValue", () => {
    assert.throws(() => update({ _id: 1, a: 5 }, { $push: { a: 1 } }), withCode(2));
  });
});

void describe("applyUpdate: $addToSet", () => {
  void it("adds only values not already present, numerically equal ones included", () => {
    assert.deepEqual(update({ _id: 1, a: [1] }, { $addToSet: { a: new Int32(1) } }), { _id: 1, a: [1] });
  });

  void it("adds each new $each value once, creating a missing array", () => {
    assert.deepEqual(update({ _id: 1 }, { $addToSet: { a: { $each: [1, 2, 1] } } }), { _id: 1, a: [1, 2] });
  });
});

void describe("applyUpdate: removing from arrays", () => {
  void it("removes the last element with $pop: 1 and the first with $pop: -1", () => {
    assert.deepEqual(update({ _id: 1, a: [1, 2, 3], b: [1, 2, 3] }, { $pop: { a: 1, b: -1 } }), {
      _id: 1,
      a: [1, 2],
      b: [2, 3],
    });
  });

  void it("removes matching elements with $pull, by value or by condition", () => {
    const doc = { _id: 1, n: [1, 5, 9], r: [{ id: 1 }, { id: 2 }] };
    assert.deepEqual(update(doc, { $pull: { n: { $gte: 5 }, r: { id: 2 } } }), {
      _id: 1,
      n: [1],
      r: [{ id: 1 }],
    });
  });

  void it("removes every listed value with $pullAll", () => {
    assert.deepEqual(update({ _id: 1, a: [1, 2, 1, 3] }, { $pullAll: { a: [1, 3] } }), { _id: 1, a: [2] });
  });

  void it("leaves a missing field alone", () => {
    assert.deepEqual(update({ _id: 1 }, { $pull: { a: 1 }, $pop: { b: 1 } }), { _id: 1 });
  });
});

void describe("applyUpdate: positional paths", () => {
  void it("updates every element with $[]", () => {
    assert.deepEqual(update({ _id: 1, a: [1, 2] }, { $inc: { "a.$[]": 10 } }), { _id: 1, a: [11, 12] });
  });

  void it("updates the elements an arrayFilter selects with $[<id>]", () => {
    const doc = { _id: 1, grades: [{ s: 80 }, { s: 95 }] };
    const result = update(doc, { $set: { "grades.$[g].top": true } }, [{ "g.s": { $gte: 90 } }]);
    assert.deepEqual(result, { _id: 1, grades: [{ s: 80 }, { s: 95, top: true }] });
  });

  void it("rejects an arrayFilter the update does not use", () => {
    assert.throws(() => update({ _id: 1, a: [1] }, { $set: { b: 1 } }, [{ x: 1 }]), withCode(9));
  });

  void it("rejects $[<id>] without a matching arrayFilter", () => {
    assert.throws(() => update({ _id: 1, a: [1] }, { $set: { "a.$[x]": 1 } }), withCode(2));
  });

  void it("updates the element the query matched with $", () => {
    const doc = {
      _id: 1,
      items: [
        { sku: "a", q: 1 },
        { sku: "b", q: 1 },
      ],
    };
    const result = applyUpdate(
      doc,
      { $inc: { "items.$.q": 1 } },
      { isInsert: false, filter: { "items.sku": "b" } },
    );
    assert.deepEqual(result.items, [
      { sku: "a", q: 1 },
      { sku: "b", q: 2 },
    ]);
  });

  void it("rejects $ when no query locates the element", () => {
    assert.throws(() => update({ _id: 1, a: [1] }, { $set: { "a.$": 2 } }), withCode(2));
  });
});
