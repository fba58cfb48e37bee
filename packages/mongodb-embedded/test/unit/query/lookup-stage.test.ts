import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BSONRegExp, type Document } from "bson";
import { ServerError } from "../../../src/errors.js";
import {
  runPipeline,
  type ForeignRead,
  type LookupStats,
  type PipelineContext,
} from "../../../src/query/index.js";
import { joinFilter, localValues } from "../../../src/query/lookup-stage.js";

const withCode = (code: number) => (error: unknown) => error instanceof ServerError && error.code === code;

/** A reader that records each read and answers from a fixed list, as an index read would. */
function recordingContext(foreign: Document[], lookupStats?: LookupStats[]) {
  const reads: ForeignRead[] = [];
  const ctx: PipelineContext = {
    collection: () => foreign,
    readCollection: (_name, read) => {
      reads.push(read);
      const stages = [{ $match: read.filter }, ...(read.sort ? [{ $sort: read.sort }] : [])];
      const docs = runPipeline(foreign, stages, { collection: () => [] }).slice(0, read.limit || undefined);
      return {
        docs,
        keysExamined: docs.length,
        docsExamined: docs.length,
        indexName: "k_1",
        collectionScan: false,
      };
    },
    lookupStats,
  };
  return { ctx, reads };
}

void describe("the join condition of a localField/foreignField $lookup", () => {
  void it("is an equality on null when the local field is missing or an empty array", () => {
    assert.deepEqual(joinFilter("k", localValues({}, ["a"])), { k: { $eq: null } });
    assert.deepEqual(joinFilter("k", localValues({ a: [] }, ["a"])), { k: { $eq: null } });
  });

  void it("is an $in of the elements of a local array, reached through arrays on the path", () => {
    assert.deepEqual(joinFilter("k", localValues({ a: [{ b: 1 }, { b: [2, 3] }, {}] }, ["a", "b"])), {
      k: { $in: [1, 2, 3] },
    });
  });

  void it("is an $or of equalities when a local value is a regex, which $in would match against strings", () => {
    const regex = new BSONRegExp("^x");
    assert.deepEqual(joinFilter("k", [regex, "y"]), { $or: [{ k: { $eq: regex } }, { k: { $eq: "y" } }] });
  });
});

void describe("a native $lookup", () => {
  const foreign = [
    { _id: 1, k: "a", seq: 1 },
    { _id: 2, k: "a", seq: 2 },
    { _id: 3, k: "b", seq: 3 },
  ];

  void it("pushes the sub-pipeline's leading $match, $sort and $limit into the foreign read", () => {
    const { ctx, reads } = recordingContext(foreign);
    const pipeline = [
      { $match: { seq: { $gt: 0 } } },
      { $sort: { seq: -1 } },
      { $limit: 1 },
      { $project: { _id: 1 } },
    ];
    const [joined] = runPipeline(
      [{ _id: 9, k: "a" }],
      [{ $lookup: { from: "f", localField: "k", foreignField: "k", pipeline, as: "j" } }],
      ctx,
    );
    assert.deepEqual(reads, [
      { filter: { $and: [{ k: { $eq: "a" } }, { seq: { $gt: 0 } }] }, sort: { seq: -1 }, limit: 1 },
    ]);
    assert.deepEqual(joined?.j, [{ _id: 2 }]);
  });

  void it("sets a dotted `as` path on a copy, leaving the input document as it was", () => {
    const { ctx } = recordingContext(foreign);
    const input = { _id: 9, k: "b", out: { keep: true } };
    const [joined] = runPipeline(
      [input],
      [{ $lookup: { from: "f", localField: "k", foreignField: "k", as: "out.found" } }],
      ctx,
    );
    assert.deepEqual(joined?.out, { keep: true, found: [foreign[2]] });
    assert.deepEqual(input, { _id: 9, k: "b", out: { keep: true } });
  });

  void it("sums what its reads examined, for explain", () => {
    const stats: LookupStats[] = [];
    const { ctx } = recordingContext(foreign, stats);
    runPipeline(
      [{ k: "a" }, { k: "b" }],
      [{ $lookup: { from: "f", localField: "k", foreignField: "k", as: "j" } }],
      ctx,
    );
    assert.deepEqual(
      stats.map((s) => [s.totalKeysExamined, s.totalDocsExamined, s.collectionScans, [...s.indexesUsed]]),
      [[3, 3, 0, ["k_1"]]],
    );
  });

  void it("refuses localField/foreignField with a non-empty let (NotImplemented) rather than guess", () => {
    const { ctx } = recordingContext(foreign);
    const lookup = { from: "f", localField: "k", foreignField: "k", let: { v: 1 }, pipeline: [], as: "j" };
    assert.throws(() => runPipeline([{ k: "a" }], [{ $lookup: lookup }], ctx), withCode(238));
  });

  void it("checks the specs of $lookup stages nested in a sub-pipeline", () => {
    const { ctx } = recordingContext(foreign);
    const nested = { $lookup: { from: "g", localField: "x", pipeline: [], as: "n" } };
    const lookup = { from: "f", localField: "k", foreignField: "k", pipeline: [nested], as: "j" };
    assert.throws(() => runPipeline([{ k: "a" }], [{ $lookup: lookup }], ctx), withCode(9));
  });
});
