import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { calculateObjectSize, Int32, Long, ObjectId } from "bson";
import { ServerError } from "../../../src/errors.js";
import { runPipeline, type PipelineContext } from "../../../src/query/index.js";

const sales = [
  { _id: 1, title: "A", year: 2001, customers: ["x", "y"] },
  { _id: 2, title: "B", year: 2001, customers: ["z"] },
  { _id: 3, title: "C", year: 2005, customers: [] },
];
const noCollections: PipelineContext = { collection: () => [] };
const run = (stages: object[], ctx = noCollections) => runPipeline(sales, stages, ctx);
const withCode = (code: number) => (error: unknown) => error instanceof ServerError && error.code === code;

void describe("runPipeline", () => {
  void it("filters with $match using BSON equality, keeping the documents' types", () => {
    const docs = [{ n: new Int32(1) }, { n: Long.fromNumber(2) }];
    assert.deepEqual(runPipeline(docs, [{ $match: { n: 2 } }], noCollections), [{ n: Long.fromNumber(2) }]);
  });

  void it("reshapes with $project", () => {
    assert.deepEqual(run([{ $project: { _id: 0, title: 1 } }]), [
      { title: "A" },
      { title: "B" },
      { title: "C" },
    ]);
  });

  void it("measures documents with $bsonSize in the stages the aggregation engine runs, and drops what $$REMOVE names", () => {
    const stages = [
      { $project: { size: { $bsonSize: { c: "$customers" } } } },
      { $project: { small: { $cond: [{ $lt: ["$size", 30] }, "$size", "$$REMOVE"] } } },
    ];
    const size = (customers: string[]) => calculateObjectSize({ c: customers });
    assert.deepEqual(run(stages), [{ _id: 1 }, { _id: 2, small: size(["z"]) }, { _id: 3, small: size([]) }]);
  });

  void it("projects field names natively, keeping BSON types, the document's field order and _id", () => {
    const docs = [
      {
        z: 1,
        _id: 7,
        a: { b: Long.fromNumber(5), c: 1 },
        list: [{ b: new Int32(1), c: 2 }, 3, [{ b: 4 }]],
        n: new Int32(2),
      },
    ];
    assert.deepEqual(
      runPipeline(docs, [{ $project: { n: 1, "a.b": 1, "list.b": true, missing: 1 } }], noCollections),
      [{ _id: 7, a: { b: Long.fromNumber(5) }, list: [{ b: new Int32(1) }, [{ b: 4 }]], n: new Int32(2) }],
    );
    assert.deepEqual(runPipeline(docs, [{ $project: { "a.c": 0, list: 0, _id: 0 } }], noCollections), [
      { z: 1, a: { b: Long.fromNumber(5) }, n: new Int32(2) },
    ]);
    // The input is left as it was.
    assert.equal(docs[0]!.a.c, 1);
  });

  void it("computes the native evaluator's expressions in $project: after the included fields, a missing value left out", () => {
    const docs = [{ n: new Int32(2), _id: 7, list: [{ b: new Int32(1) }, 3], z: 1 }];
    const stage = { $project: { first: { $arrayElemAt: ["$list", 0] }, n: 1, gone: "$missing" } };
    const [projected] = runPipeline(docs, [stage], noCollections);
    assert.deepEqual(projected, { _id: 7, n: new Int32(2), first: { b: new Int32(1) } });
    assert.deepEqual(Object.keys(projected!), ["_id", "n", "first"]);
    (projected!.first as { b: unknown }).b = 0;
    assert.deepEqual(docs[0]!.list[0], { b: new Int32(1) }, "the input is left as it was");
    assert.deepEqual(runPipeline(docs, [{ $project: { _id: 0, size: { $size: "$list" } } }], noCollections), [
      { size: 2 },
    ]);
  });

  void it("computes an array literal in $project natively, as mongod: its elements evaluated, a missing one null", () => {
    const docs = [{ n: new Int32(2), _id: 7, documentKey: { _id: Long.fromNumber(5) } }];
    const [projected] = runPipeline(
      docs,
      [{ $project: { n: 1, keys: ["$documentKey", "$n", "$missing"] } }],
      noCollections,
    );
    assert.deepEqual(projected, {
      _id: 7,
      n: new Int32(2),
      keys: [{ _id: Long.fromNumber(5) }, new Int32(2), null],
    });
    assert.deepEqual(Object.keys(projected!), ["_id", "n", "keys"]);
  });

  void it("refuses a $project mixing inclusion and exclusion, and leaves expressions to the aggregation engine", () => {
    assert.throws(
      () => run([{ $project: { title: 1, year: 0 } }]),
      (error: unknown) =>
        withCode(31254)(error) &&
        /Cannot do exclusion on field year in inclusion projection/.test(String(error)),
    );
    assert.deepEqual(run([{ $project: { _id: 0, n: { $size: "$customers" } } }]), [
      { n: 2 },
      { n: 1 },
      { n: 0 },
    ]);
  });

  void it("groups and sums with $group, then orders with $sort", () => {
    const result = run([{ $group: { _id: "$year", n: { $sum: 1 } } }, { $sort: { _id: -1 } }]);
    assert.deepEqual(result, [
      { _id: 2005, n: 1 },
      { _id: 2001, n: 2 },
    ]);
  });

  void it("pages with $skip and $limit", () => {
    assert.deepEqual(
      run([{ $sort: { _id: 1 } }, { $skip: 1 }, { $limit: 1 }]).map((d) => d._id),
      [2],
    );
  });

  void it("unwinds arrays with $unwind, dropping empty ones", () => {
    assert.deepEqual(
      run([{ $unwind: "$customers" }]).map((d) => d.customers),
      ["x", "y", "z"],
    );
  });

  void it("counts with $count", () => {
    assert.deepEqual(run([{ $match: { year: 2001 } }, { $count: "n" }]), [{ n: 2 }]);
  });

  void it("adds and removes fields with $addFields and $unset", () => {
    const result = run([
      { $addFields: { buyers: { $size: "$customers" } } },
      { $unset: ["customers", "year"] },
    ]);
    assert.deepEqual(result[0], { _id: 1, title: "A", buyers: 2 });
  });

  void it("promotes an embedded document with $replaceRoot", () => {
    const docs = [{ _id: 1, inner: { a: 1 } }];
    assert.deepEqual(runPipeline(docs, [{ $replaceRoot: { newRoot: "$inner" } }], noCollections), [{ a: 1 }]);
  });

  void it("joins another collection of the database with $lookup, ObjectIds included", () => {
    const bookId = new ObjectId();
    const ctx: PipelineContext = {
      collection: (name) =>
        name === "extra_sales" ? [{ book_id: bookId, customers_purchased_extra: ["q"] }] : [],
    };
    const result = runPipeline(
      [{ _id: bookId, title: "A" }],
      [{ $lookup: { from: "extra_sales", localField: "_id", foreignField: "book_id", as: "extras" } }],
      ctx,
    );
    assert.equal(result[0]?.extras.length, 1);
  });

  void it("does not modify the input documents", () => {
    const docs = [{ a: { b: 1 } }];
    runPipeline(docs, [{ $set: { "a.c": 2 } }], noCollections);
    assert.deepEqual(docs, [{ a: { b: 1 } }]);
  });

  void it("leaves $out and $merge to the command layer (NotImplemented)", () => {
    assert.throws(() => run([{ $out: "elsewhere" }]), withCode(238));
    assert.throws(() => run([{ $merge: { into: "elsewhere" } }]), withCode(238));
  });

  void it("rejects an unknown stage with code 40324", () => {
    assert.throws(() => run([{ $bogus: {} }]), withCode(40324));
  });
});
