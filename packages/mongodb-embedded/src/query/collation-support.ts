// Which parts of a pipeline honour a non-simple collation here. $match, $sort and $group keys
// do; mingo's expression operators and the joining/bucketing stages compare strings as
// binary, where mongod would use the collation. Pipelines that need those are refused with a
// clear error rather than answered with binary comparisons.
import type { Document } from "bson";
import { isPlainDocument } from "./bson-types.js";
import { queryError } from "./query-error.js";

/** Stages that compare values outside of anything we collate. */
const REFUSED_STAGES = new Set([
  "$lookup",
  "$graphLookup",
  "$bucket",
  "$bucketAuto",
  "$sortByCount",
  "$setWindowFields",
  "$densify",
  "$fill",
]);

/** Stages whose comparisons are all collated here, or which compare nothing. */
const COLLATED_STAGES = new Set(["$match", "$sort", "$skip", "$limit", "$count", "$unset", "$sample"]);

/** Expression operators and accumulators that compare values (strings among them). */
const COMPARING_OPERATORS = new Set([
  "$eq",
  "$ne",
  "$gt",
  "$gte",
  "$lt",
  "$lte",
  "$cmp",
  "$in",
  "$indexOfArray",
  "$setEquals",
  "$setIntersection",
  "$setUnion",
  "$setDifference",
  "$setIsSubset",
  "$sortArray",
  "$min",
  "$max",
  "$minN",
  "$maxN",
  "$addToSet",
  "$top",
  "$topN",
  "$bottom",
  "$bottomN",
]);

export function assertCollationHonoured(stages: Document[]): void {
  for (const stage of stages) {
    const [name] = Object.keys(stage);
    if (name === undefined || COLLATED_STAGES.has(name)) continue;
    const argument: unknown = stage[name];
    if (REFUSED_STAGES.has(name)) throw refused(`the ${name} stage`);
    if (name === "$facet" && isPlainDocument(argument)) {
      for (const pipeline of Object.values(argument)) {
        if (Array.isArray(pipeline)) assertCollationHonoured(pipeline as Document[]);
      }
    } else if (name === "$unionWith" && isPlainDocument(argument)) {
      if (Array.isArray(argument.pipeline)) assertCollationHonoured(argument.pipeline as Document[]);
    } else if (name === "$group" && isPlainDocument(argument)) {
      // The _id is collated (collated-group.ts); the accumulators are mingo's.
      const { _id: _key, ...accumulators } = argument;
      assertNoComparison(accumulators, name);
    } else {
      assertNoComparison(argument, name);
    }
  }
}

function assertNoComparison(value: unknown, stage: string): void {
  if (Array.isArray(value)) {
    for (const item of value) assertNoComparison(item, stage);
    return;
  }
  if (!isPlainDocument(value)) return;
  for (const [key, inner] of Object.entries(value)) {
    if (key === "$literal") continue;
    if (COMPARING_OPERATORS.has(key)) throw refused(`${key} in ${stage}`);
    assertNoComparison(inner, stage);
  }
}

function refused(what: string) {
  return queryError(
    "NotImplemented",
    `${what} with a non-simple collation is not supported by the embedded server (it would compare strings as binary)`,
  );
}
