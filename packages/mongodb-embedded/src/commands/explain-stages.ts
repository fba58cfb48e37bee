// The stages after an aggregate's read, as explain lists them after its $cursor stage. With
// executionStats each stage runs, one after the other as the aggregate runs them, and reports
// the documents it returned; a native $lookup also reports what its reads of the foreign
// collection examined, in mongod 5.0+'s fields (totalDocsExamined, totalKeysExamined,
// collectionScans, indexesUsed), so a test can prove a join's cost from explain.
import { Long, type Document } from "bson";
import { runPipeline, type LookupStats } from "../query/index.js";
import type { ServerState } from "../server-state.js";
import { aggregateContext } from "./aggregate-read.js";
import type { CommandRequest } from "./command-context.js";

/** Stages the command layer carries out (writes, sources it feeds the pipeline from): explain
 * lists them but never runs them. */
const COMMAND_LAYER_STAGES = ["$out", "$merge", "$changeStream", "$listLocalSessions"];

export function explainStages(
  request: CommandRequest,
  server: ServerState,
  input: Document[],
  stages: Document[],
): Document[] {
  const context = aggregateContext(request, server);
  let docs = input;
  return stages.map((stage) => {
    if (COMMAND_LAYER_STAGES.some((name) => name in stage)) return stage;
    const lookupStats: LookupStats[] = [];
    docs = runPipeline(docs, [stage], { ...context, lookupStats });
    const described = lookupStats[0] ? describeLookup(lookupStats[0]) : stage;
    // mongod reports these counters as 64-bit integers.
    return { ...described, nReturned: Long.fromNumber(docs.length), executionTimeMillisEstimate: Long.ZERO };
  });
}

/** mongod's serialization of a $lookup in explain: the join fields, `let` and `pipeline` when a
 * sub-pipeline was given, then the stats of every read of the foreign collection. */
function describeLookup(stats: LookupStats): Document {
  const { from, as, localField, foreignField, pipeline } = stats.spec;
  const subPipeline = pipeline ? { let: stats.spec.let ?? {}, pipeline } : {};
  return {
    $lookup: { from, as, localField, foreignField, ...subPipeline },
    totalDocsExamined: Long.fromNumber(stats.totalDocsExamined),
    totalKeysExamined: Long.fromNumber(stats.totalKeysExamined),
    collectionScans: Long.fromNumber(stats.collectionScans),
    indexesUsed: [...stats.indexesUsed],
  };
}
