// The native $lookup answers as the mingo path did wherever mingo followed mongod: random small
// collections, joined through the driver, compared with runPipeline without a collection reader
// (which leaves every $lookup to mingo).
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Document } from "mongodb";
import { runPipeline } from "../../src/query/index.js";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_lookup_equivalence");

const key = fc.integer({ min: 0, max: 3 });
/** Foreign keys: a value, null, missing, or an array of distinct values (mingo joins a repeated
 * element twice, mongod once). */
const foreignKey = fc.oneof(
  key,
  fc.constant(null),
  fc.constant(undefined),
  fc.uniqueArray(key, { maxLength: 3 }),
);
/** Local values: a value, missing, or a non-empty array (mingo joins nothing for [], mongod null). */
const localKey = fc.oneof(key, fc.constant(undefined), fc.uniqueArray(key, { minLength: 1, maxLength: 3 }));
const scenario = fc.record({
  locals: fc.array(localKey, { maxLength: 6 }),
  foreignKeys: fc.array(foreignKey, { maxLength: 10 }),
  indexed: fc.boolean(),
});

let runs = 0;

interface Scenario {
  locals: (number | number[] | undefined)[];
  foreignKeys: (number | number[] | null | undefined)[];
  indexed: boolean;
}

async function joinBothWays({ locals, foreignKeys, indexed }: Scenario, pipeline?: Document[]) {
  runs += 1;
  const source = fixture.db.collection(`src_${runs}`);
  const foreign = fixture.db.collection(`foreign_${runs}`);
  if (indexed) await foreign.createIndex({ k: 1, seq: 1 });
  const sources = locals.map((local, i) => (local === undefined ? { _id: i } : { _id: i, k: local }));
  const foreigns = foreignKeys.map((k, seq) => (k === undefined ? { _id: seq, seq } : { _id: seq, seq, k }));
  if (sources.length > 0) await source.insertMany(sources as never[]);
  if (foreigns.length > 0) await foreign.insertMany(foreigns as never[]);
  const join = { from: foreign.collectionName, localField: "k", foreignField: "k", as: "j" };
  const stages = [{ $sort: { _id: 1 } }, { $lookup: pipeline ? { ...join, pipeline } : join }];
  const native = await source.aggregate(stages).toArray();
  const mingo = runPipeline(sources, [{ $sort: { _id: 1 } }, { $lookup: join }], {
    collection: () => foreigns,
  });
  // mingo puts `undefined` in the join for a local array element nothing matches.
  const joined = mingo.map((doc) => ({ ...doc, j: (doc.j as Document[]).filter((d) => d !== undefined) }));
  return { native, joined };
}

const byId = (docs: Document[]) => [...docs].sort((a, b) => Number(a._id) - Number(b._id));

void test("a localField/foreignField $lookup joins the same documents as mingo did", async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async (generated) => {
      const { native, joined } = await joinBothWays(generated);
      assert.deepEqual(
        native.map((doc) => ({ ...doc, j: byId(doc.j as Document[]) })),
        joined.map((doc) => ({ ...doc, j: byId(doc.j as Document[]) })),
      );
    }),
    { numRuns: 25 },
  );
});

void test("a sub-pipeline runs on exactly the documents the plain join finds", async () => {
  const subPipeline = [{ $sort: { seq: -1 } }, { $limit: 2 }, { $project: { _id: 0, seq: 1 } }];
  await fc.assert(
    fc.asyncProperty(scenario, async (generated) => {
      const { native, joined } = await joinBothWays(generated, subPipeline);
      const expected = joined.map((doc) => ({
        ...doc,
        j: runPipeline(doc.j as Document[], subPipeline, { collection: () => [] }),
      }));
      assert.deepEqual(native, expected);
    }),
    { numRuns: 25 },
  );
});
