// The query engine of the embedded server: filters, updates, projection, sort and
// aggregation, with MongoDB's BSON semantics. Everything the other server modules use is here.
export { compareValues, valuesEqual, type StringComparator } from "./bson-order.js";
export { collatorFor, parseCollation, stringComparatorFor, type CollationSpec } from "./collation.js";
export { compileFilter, matchesFilter, type DocumentPredicate, type FilterOptions } from "./filter.js";
export {
  applyLoggedUpdate,
  applyUpdate,
  isReplacement,
  type LoggedUpdate,
  type UpdateOptions,
} from "./update.js";
export { upsertSeed } from "./upsert-seed.js";
export { projectDocument } from "./projection.js";
export { sortDocuments } from "./sort.js";
export { compilePipeline, runPipeline, type PipelineContext } from "./pipeline.js";
export { splitLeadingRead, type LeadingRead } from "./native-stages.js";
export type { CollectionReader, ForeignRead, ForeignReadResult, LookupStats } from "./lookup-stage.js";
export { evaluateLetVariables } from "./let-variables.js";
export { bsonTypeOf } from "./bson-types.js";
export { withIdAhead } from "./field-order.js";
export { assertValidDocument, validationOptions, VALIDATION_OPTIONS } from "./document-validation.js";
