import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyUpdate, upsertSeed } from "../../../src/query/index.js";

void describe("upsertSeed", () => {
  void it("takes nothing from a regex or a comparison operator", () => {
    assert.deepEqual(upsertSeed({ _id: /^123_/, count: { $lt: 10 } }), {});
  });

  void it("expands dotted equality paths into embedded documents", () => {
    assert.deepEqual(upsertSeed({ a: 1, "b.c": 2 }), { a: 1, b: { c: 2 } });
  });

  void it("takes $eq values and equalities inside $and", () => {
    assert.deepEqual(upsertSeed({ a: { $eq: 1 }, $and: [{ b: 2 }, { c: { $gt: 1 } }] }), { a: 1, b: 2 });
  });

  void it("ignores $or, whose branches are not all true", () => {
    assert.deepEqual(upsertSeed({ $or: [{ a: 1 }, { a: 2 }] }), {});
  });

  void it("seeds the trade bucket upsert of the bucket pattern", () => {
    const seed = upsertSeed({ customerId: 123, count: { $lt: 10 } });
    const trade = { type: "buy", ticker: "MDB", qty: 25, date: new Date(0) };
    const doc = applyUpdate(
      { _id: "123_0", ...seed },
      { $push: { history: trade }, $inc: { count: 1 }, $setOnInsert: { customerId: 123 } },
      { isInsert: true },
    );
    assert.deepEqual(doc, { _id: "123_0", customerId: 123, count: 1, history: [trade] });
  });
});
