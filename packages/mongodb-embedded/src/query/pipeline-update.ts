// Pipeline-style updates (`[{ $set: ... }, { $unset: ... }]`): only the reshaping stages
// mongod allows there, run through the aggregation engine over the single document.
import type { Document } from "bson";
import { bsonTag, isPlainDocument, toNumber } from "./bson-types.js";
import { withIdAhead } from "./field-order.js";
import { runPipeline } from "./pipeline.js";
import { queryError } from "./query-error.js";

const UPDATE_STAGES = new Set(["$addFields", "$set", "$project", "$unset", "$replaceRoot", "$replaceWith"]);

export function applyPipelineUpdate(doc: Document, stages: Document[], variables?: Document): Document {
  for (const stage of stages) {
    const name = isPlainDocument(stage) ? Object.keys(stage)[0] : undefined;
    if (name === undefined || !UPDATE_STAGES.has(name)) {
      throw queryError("InvalidOptions", `${String(name)} is not allowed to be used within an update`);
    }
  }
  const [result] = runPipeline([doc], stages, { collection: () => [], variables });
  if (result === undefined) throw queryError("BadValue", "the update pipeline produced no document");
  const restored = restoreNumericTypes(result, doc) as Document;
  if (restored._id === undefined && doc._id !== undefined) return withIdAhead(doc._id, restored);
  return restored;
}

/**
 * The aggregation engine sees Int32/Long/Double wrappers as plain numbers. Where a field comes
 * out with the same numeric value it went in with, the original (typed) value is put back.
 */
function restoreNumericTypes(value: unknown, original: unknown): unknown {
  if (typeof value === "number" && bsonTag(original) !== undefined && toNumber(original) === value)
    return original;
  if (Array.isArray(value) && Array.isArray(original))
    return value.map((v, i) => restoreNumericTypes(v, original[i]));
  if (isPlainDocument(value) && isPlainDocument(original)) {
    const restored: Document = {};
    for (const key of Object.keys(value)) restored[key] = restoreNumericTypes(value[key], original[key]);
    return restored;
  }
  return value;
}
