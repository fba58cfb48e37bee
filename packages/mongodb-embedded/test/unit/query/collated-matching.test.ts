import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Document } from "bson";
import { ServerError } from "../../../src/errors.js";
import {
  applyUpdate,
  collatorFor,
  matchesFilter,
  runPipeline,
  sortDocuments,
} from "../../../src/query/index.js";

const caseInsensitive = collatorFor({ locale: "en_US", strength: 2 })!;
const options = { strings: caseInsensitive };
const matches = (doc: Document, filter: Document) => matchesFilter(doc, filter, options);
const noCollections = { collection: () => [] };

void describe("filters under a case-insensitive collation", () => {
  void it("matches an equality whatever the case, and only with a collation", () => {
    assert.ok(matches({ x: "ping" }, { x: "PING" }));
    assert.equal(matchesFilter({ x: "ping" }, { x: "PING" }), false);
  });

  void it("applies the collation to $eq, $ne, $in and $nin", () => {
    assert.ok(matches({ x: "Ping" }, { x: { $eq: "pInG" } }));
    assert.equal(matches({ x: "Ping" }, { x: { $ne: "PING" } }), false);
    assert.ok(matches({ x: "Pong" }, { x: { $in: ["ping", "PONG"] } }));
    assert.equal(matches({ x: "Pong" }, { x: { $nin: ["pong"] } }), false);
  });

  void it("orders strings by the collation in range operators", () => {
    // Binary order puts every capital before "a"; the collation puts "B" after "a".
    assert.ok(matches({ x: "B" }, { x: { $gt: "a" } }));
    assert.equal(matchesFilter({ x: "B" }, { x: { $gt: "a" } }), false);
    assert.ok(matches({ x: "apple" }, { x: { $gte: "APPLE", $lte: "apple" } }));
  });

  void it("compares strings inside arrays and embedded documents by the collation", () => {
    assert.ok(matches({ tags: ["Red", "Blue"] }, { tags: "blue" }));
    assert.ok(matches({ tags: ["Red", "Blue"] }, { tags: ["RED", "BLUE"] }));
    assert.ok(matches({ who: { name: "Ada" } }, { who: { name: "ADA" } }));
    assert.ok(matches({ items: [{ sku: "ab-1" }] }, { items: { $elemMatch: { sku: "AB-1" } } }));
  });

  void it("keeps the BSON type order for values that are not strings", () => {
    assert.equal(matches({ x: 5 }, { x: { $gt: "a" } }), false);
    assert.ok(matches({ x: 5 }, { x: 5.0 }));
  });

  void it("never applies the collation to field names or regexes", () => {
    assert.equal(matches({ X: "ping" }, { x: "ping" }), false);
    assert.equal(matches({ x: "PING" }, { x: /^ping$/ }), false);
  });

  void it("refuses $expr, whose comparisons would ignore the collation", () => {
    assert.throws(
      () => matches({ x: "a" }, { $expr: { $eq: ["$x", "A"] } }),
      (error) => error instanceof ServerError && error.codeName === "NotImplemented",
    );
  });
});

void describe("sorting and grouping under a collation", () => {
  void it("sorts strings by the collation rather than by code units", () => {
    const docs = [{ s: "b" }, { s: "B" }, { s: "a" }, { s: "C" }];
    assert.deepEqual(
      sortDocuments(docs, { s: 1 }, collatorFor({ locale: "en", caseFirst: "upper" })).map((d) => d.s),
      ["a", "B", "b", "C"],
    );
    assert.deepEqual(
      sortDocuments(docs, { s: 1 }).map((d) => d.s),
      ["B", "C", "a", "b"],
    );
  });

  void it("sorts numbered strings by value with numericOrdering", () => {
    const docs = [{ s: "v10" }, { s: "v9" }, { s: "v100" }];
    const numeric = collatorFor({ locale: "en", numericOrdering: true });
    assert.deepEqual(
      sortDocuments(docs, { s: -1 }, numeric).map((d) => d.s),
      ["v100", "v10", "v9"],
    );
  });

  void it("keeps strings after numbers whatever the collation", () => {
    const sorted = sortDocuments([{ v: "a" }, { v: 2 }], { v: 1 }, caseInsensitive);
    assert.deepEqual(
      sorted.map((d) => d.v),
      [2, "a"],
    );
  });

  void it("groups keys equal under the collation under the first key seen", () => {
    const docs = [{ k: "Ping" }, { k: "pong" }, { k: "PING" }];
    const groups = runPipeline(docs, [{ $project: { k: 1 } }, { $group: { _id: "$k", n: { $sum: 1 } } }], {
      ...noCollections,
      strings: caseInsensitive,
    });
    assert.deepEqual(groups, [
      { _id: "Ping", n: 2 },
      { _id: "pong", n: 1 },
    ]);
  });

  void it("applies the collation to a $match after other stages", () => {
    const docs = [{ k: "Ping" }, { k: "pong" }];
    const result = runPipeline(docs, [{ $project: { _id: 0, k: 1 } }, { $match: { k: "PING" } }], {
      ...noCollections,
      strings: caseInsensitive,
    });
    assert.deepEqual(result, [{ k: "Ping" }]);
  });

  void it("refuses pipeline stages that would compare strings as binary", () => {
    const refused = (error: unknown) => error instanceof ServerError && error.codeName === "NotImplemented";
    const run = (stages: Document[]) =>
      runPipeline([], stages, { ...noCollections, strings: caseInsensitive });
    assert.throws(
      () => run([{ $lookup: { from: "c", localField: "a", foreignField: "b", as: "j" } }]),
      refused,
    );
    assert.throws(() => run([{ $project: { same: { $eq: ["$a", "x"] } } }]), refused);
    assert.throws(() => run([{ $group: { _id: null, top: { $max: "$s" } } }]), refused);
  });
});

void describe("update operators under a collation", () => {
  void it("pulls elements equal under the collation", () => {
    const updated = applyUpdate(
      { _id: 1, tags: ["Red", "blue"] },
      { $pull: { tags: "RED" } },
      {
        isInsert: false,
        strings: caseInsensitive,
      },
    );
    assert.deepEqual(updated.tags, ["blue"]);
  });

  void it("does not add an element already present under the collation", () => {
    const updated = applyUpdate(
      { _id: 1, tags: ["Red"] },
      { $addToSet: { tags: "RED" } },
      {
        isInsert: false,
        strings: caseInsensitive,
      },
    );
    assert.deepEqual(updated.tags, ["Red"]);
  });

  void it("matches array filters under the collation", () => {
    const updated = applyUpdate(
      { _id: 1, items: [{ sku: "ab", n: 1 }] },
      { $inc: { "items.$[i].n": 1 } },
      { isInsert: false, arrayFilters: [{ "i.sku": "AB" }], strings: caseInsensitive },
    );
    assert.equal((updated.items as Document[])[0]!.n, 2);
  });
});
