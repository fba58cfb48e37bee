// Aggregation pipelines, run by mingo over numeric views of the documents, except the stages
// run natively: leading $match/$sort/$skip/$limit (native-stages.ts) and, when the context can
// read collections through their indexes, $lookup joins on localField/foreignField
// (lookup-stage.ts). The $changeStream stage is the change-stream module's; $out and $merge
// are the command layer's.
import type { Document } from "bson";
import { Aggregator } from "mingo/aggregator";
import type { StringComparator } from "./bson-order.js";
import { isPlainDocument } from "./bson-types.js";
import { assertCollationHonoured } from "./collation-support.js";
import {
  compileEqualityJoin,
  isEqualityJoin,
  type CollectionReader,
  type DocumentsStage,
  type EqualityJoin,
  type LookupStats,
} from "./lookup-stage.js";
import { parseLookupSpec } from "./lookup-spec.js";
import { withMingoErrors } from "./mingo-errors.js";
import { compileLeadingNativeStages } from "./native-stages.js";
import { toMingoDocument, toMingoValue } from "./mingo-view.js";
import { copyFieldOrder } from "@pattern-sidecar/bson-field-order";
import { pipelineContextFor } from "./pipeline-context.js";
import { queryError } from "./query-error.js";

export interface PipelineContext {
  /** The current documents of another collection of the same database ($lookup, $unionWith, $graphLookup). */
  collection(name: string): Document[];
  /** Reads another collection through its indexes; without it every $lookup runs in mingo. */
  readCollection?: CollectionReader;
  /** Each native $lookup stage adds what its reads examined here (explain). */
  lookupStats?: LookupStats[];
  variables?: Document;
  /** The command's collation as a string order; undefined is the simple collation. */
  strings?: StringComparator;
}

/**
 * Runs aggregation stages. When every stage is $match/$sort/$skip/$limit the result holds the
 * input documents themselves (not copies); a $project of field names alone among them makes
 * copies that keep every BSON type; after a stage mingo runs, the documents are new ones in
 * which Int32, Long and Double values have become JS numbers, except what a native $lookup
 * joined.
 */
export function runPipeline(docs: Iterable<Document>, stages: Document[], ctx: PipelineContext): Document[] {
  return compilePipeline(stages, ctx)(Array.isArray(docs) ? (docs as Document[]) : Array.from(docs));
}

/** Compiles the stages once (filters, joins, mingo's aggregator), for a cursor that runs them on every event. */
export function compilePipeline(stages: Document[], ctx: PipelineContext): DocumentsStage {
  assertStageShapes(stages);
  if (ctx.strings) assertCollationHonoured(stages);
  const native = compileLeadingNativeStages(stages, { variables: ctx.variables, strings: ctx.strings });
  if (native.consumed === stages.length) return (docs) => native.run(docs).slice();
  const rest = compileAfterLeadingStages(stages.slice(native.consumed), ctx);
  return (docs) => rest(native.run(docs));
}

function assertStageShapes(stages: Document[]): void {
  if (!Array.isArray(stages))
    throw queryError("TypeMismatch", "pipeline must be an array of stage documents");
  for (const stage of stages) {
    if (stage === null || typeof stage !== "object" || Object.keys(stage).length !== 1) {
      throw queryError(
        "Location40324",
        "A pipeline stage specification object must contain exactly one field.",
      );
    }
  }
}

/** Splits the stages at each native join: mingo runs the stretches between them. */
function compileAfterLeadingStages(stages: Document[], ctx: PipelineContext): DocumentsStage {
  const { readCollection } = ctx;
  const joins = stages.map((stage) => nativeJoin(stage, readCollection !== undefined));
  const at = joins.findIndex((join) => join !== undefined);
  if (at < 0 || !readCollection) return compileMingo(stages, ctx);
  const after = at + 1 < stages.length ? compilePipeline(stages.slice(at + 1), ctx) : undefined;
  const join = compileEqualityJoin(
    joins[at]!,
    { readCollection, lookupStats: ctx.lookupStats },
    (sub, reader) => compilePipeline(sub, { ...ctx, readCollection: reader, lookupStats: undefined }),
  );
  const before = at > 0 ? compileMingo(stages.slice(0, at), ctx) : undefined;
  return (docs) => {
    const joined = join(before ? before(docs) : docs);
    return after ? after(joined) : joined;
  };
}

/** The spec of a $lookup stage joined natively (when collections can be read through their
 * indexes); every $lookup spec is checked here, with mongod's errors, whichever engine runs
 * it. A pipeline-only $lookup (`let` + `pipeline`, or a collection-less `$documents` one)
 * stays with mingo, which evaluates `let` per document; it reads the whole foreign
 * collection for every aggregate. */
function nativeJoin(stage: Document, canRead: boolean): EqualityJoin | undefined {
  if (!("$lookup" in stage)) return undefined;
  const spec = parseLookupSpec(stage.$lookup);
  if (!canRead || !isEqualityJoin(spec)) return undefined;
  if (spec.let && Object.keys(spec.let).length > 0) {
    // mingo would run the sub-pipeline over the whole collection whenever anything matched.
    throw queryError("NotImplemented", "a $lookup with localField/foreignField and 'let' is not supported");
  }
  return spec;
}

function compileMingo(stages: Document[], ctx: PipelineContext): DocumentsStage {
  const aggregator = new Aggregator(toMingoValue(stages) as Document[], {
    context: pipelineContextFor(ctx.strings),
    variables: toMingoValue(ctx.variables ?? {}) as Document,
    collectionResolver: (name) => ctx.collection(name).map(toMingoDocument),
  });
  return (docs) =>
    (withMingoErrors(() => aggregator.run(docs.map(toMingoDocument))) as Document[]).map(withoutRemoved);
}

/**
 * mingo leaves a field that an expression gave `$$REMOVE` (or a missing value) as undefined,
 * which a reply would carry as null; mongod leaves the field out. Copied only where one is.
 */
function withoutRemoved(doc: Document): Document {
  let copy: Document | undefined;
  for (const [name, value] of Object.entries(doc)) {
    if (value === undefined) {
      copy ??= { ...doc };
      delete copy[name];
    } else if (isPlainDocument(value)) {
      const kept = withoutRemoved(value);
      if (kept !== value) (copy ??= { ...doc })[name] = kept;
    }
  }
  if (copy !== undefined) copyFieldOrder(doc, copy);
  return copy ?? doc;
}
