// The mingo context aggregation runs in: all of mingo's operators, except the stages whose
// BSON semantics we implement ourselves ($match, $sort, and $group under a collation) and the
// writing stages the command layer owns ($out, $merge). A collation reaches the stages as a
// comparator the context closes over, one context per comparator.
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
import type { StringComparator } from "./bson-order.js";
import { collatedGroup, type Stream } from "./collated-group.js";
import { compileFilter } from "./filter.js";
import { $bsonSize } from "./mingo-bson-size.js";
import { $toHashedIndexKey } from "./hashed-index-key.js";
import { ServerError } from "../errors.js";
import { queryError } from "./query-error.js";
import { sortDocuments } from "./sort.js";

function matchStage(strings: StringComparator | undefined) {
  return (collection: Stream, filter: Document, options: Options): Stream => {
    const predicate = compileFilter(filter, {
      variables: options.variables as Document | undefined,
      strings,
    });
    return collection.filter((doc) => predicate(doc as Document));
  };
}

function sortStage(strings: StringComparator | undefined) {
  return (collection: Stream, spec: Document): Stream =>
    collection.transform((docs) => Lazy(sortDocuments(docs as Document[], spec, strings)));
}

function groupStage(strings: StringComparator | undefined) {
  if (strings === undefined) return pipelineOperators.$group;
  return (collection: Stream, spec: Document, options: Options): Stream =>
    collatedGroup(collection, spec, options, strings);
}

function writingStage(name: string) {
  return (): Stream => {
    throw queryError("NotImplemented", `${name} is executed by the command layer, not the query engine`);
  };
}

/** Source stages the command layer runs when they come first; anywhere else they are errors. */
function firstOnlyStage(name: string) {
  return (): Stream => {
    throw new ServerError(40602, "Location40602", `${name} is only valid as the first stage in a pipeline.`);
  };
}

function buildContext(strings: StringComparator | undefined): Context {
  return Context.init({
    accumulator: accumulatorOperators,
    expression: { ...expressionOperators, $bsonSize, $toHashedIndexKey },
    pipeline: {
      ...pipelineOperators,
      $match: matchStage(strings),
      $sort: sortStage(strings),
      $group: groupStage(strings),
      $out: writingStage("$out"),
      $merge: writingStage("$merge"),
      $listLocalSessions: firstOnlyStage("$listLocalSessions"),
    } as unknown as Record<string, PipelineOperator>,
    projection: projectionOperators,
    query: queryOperators,
    window: windowOperators,
  });
}

const SIMPLE_CONTEXT = buildContext(undefined);
const collatedContexts = new WeakMap<StringComparator, Context>();

/** The context for a collation's string order (undefined: the simple collation). */
export function pipelineContextFor(strings: StringComparator | undefined): Context {
  if (strings === undefined) return SIMPLE_CONTEXT;
  let context = collatedContexts.get(strings);
  if (context === undefined) {
    context = buildContext(strings);
    collatedContexts.set(strings, context);
  }
  return context;
}
