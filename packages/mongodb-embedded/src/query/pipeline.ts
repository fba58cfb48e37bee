// Aggregation pipelines, run by mingo over numeric views of the documents. The $changeStream
// stage is the change-stream module's; $out and $merge are the command layer's.
import type { Document } from "bson";
import { Aggregator } from "mingo/aggregator";
import type { StringComparator } from "./bson-order.js";
import { assertCollationHonoured } from "./collation-support.js";
import { withMingoErrors } from "./mingo-errors.js";
import { compileLeadingNativeStages } from "./native-stages.js";
import { toMingoDocument, toMingoValue } from "./mingo-view.js";
import { pipelineContextFor } from "./pipeline-context.js";
import { queryError } from "./query-error.js";

export interface PipelineContext {
  /** The current documents of another collection of the same database ($lookup, $unionWith, $graphLookup). */
  collection(name: string): Document[];
  variables?: Document;
  /** The command's collation as a string order; undefined is the simple collation. */
  strings?: StringComparator;
}

/**
 * Runs aggregation stages. When every stage is $match/$sort/$skip/$limit the result holds the
 * input documents themselves (not copies); otherwise it holds new documents in which Int32,
 * Long and Double values have become JS numbers.
 */
export function runPipeline(docs: Iterable<Document>, stages: Document[], ctx: PipelineContext): Document[] {
  return compilePipeline(stages, ctx)(Array.isArray(docs) ? (docs as Document[]) : Array.from(docs));
}

/** Compiles the stages once (filters, mingo's aggregator), for a cursor that runs them on every event. */
export function compilePipeline(stages: Document[], ctx: PipelineContext): (docs: Document[]) => Document[] {
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
  if (ctx.strings) assertCollationHonoured(stages);
  const native = compileLeadingNativeStages(stages, { variables: ctx.variables, strings: ctx.strings });
  if (native.consumed === stages.length) return (docs) => native.run(docs).slice();
  const aggregator = new Aggregator(toMingoValue(stages.slice(native.consumed)) as Document[], {
    context: pipelineContextFor(ctx.strings),
    variables: toMingoValue(ctx.variables ?? {}) as Document,
    collectionResolver: (name) => ctx.collection(name).map(toMingoDocument),
  });
  return (docs) => {
    const input = native.run(docs).map(toMingoDocument);
    return withMingoErrors(() => aggregator.run(input)) as Document[];
  };
}
