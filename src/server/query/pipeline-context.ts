// The mingo context aggregation runs in: all of mingo's operators, except the stages whose
// BSON semantics we implement ourselves ($match, $sort) and the writing stages the command
// layer owns ($out, $merge).
import type { Document } from "bson";
import { Context } from "mingo/core";
import * as accumulatorOperators from "mingo/operators/accumulator";
import * as expressionOperators from "mingo/operators/expression";
import * as pipelineOperators from "mingo/operators/pipeline";
import * as projectionOperators from "mingo/operators/projection";
import * as queryOperators from "mingo/operators/query";
import * as windowOperators from "mingo/operators/window";
import { Lazy } from "mingo/lazy";
import type { Options, PipelineOperator } from "mingo/types";
import { compileFilter } from "./filter.js";
import { queryError } from "./query-error.js";
import { sortDocuments } from "./sort.js";

type Stream = ReturnType<typeof pipelineOperators.$match>;

function matchStage(collection: Stream, filter: Document, options: Options): Stream {
  const predicate = compileFilter(filter, options.variables as Document | undefined);
  return collection.filter((doc) => predicate(doc as Document));
}

function sortStage(collection: Stream, spec: Document): Stream {
  return collection.transform((docs) => Lazy(sortDocuments(docs as Document[], spec)));
}

function writingStage(name: string) {
  return (): Stream => {
    throw queryError("NotImplemented", `${name} is executed by the command layer, not the query engine`);
  };
}

export const PIPELINE_CONTEXT = Context.init({
  accumulator: accumulatorOperators,
  expression: expressionOperators,
  pipeline: {
    ...pipelineOperators,
    $match: matchStage,
    $sort: sortStage,
    $out: writingStage("$out"),
    $merge: writingStage("$merge"),
  } as unknown as Record<string, PipelineOperator>,
  projection: projectionOperators,
  query: queryOperators,
  window: windowOperators,
});
