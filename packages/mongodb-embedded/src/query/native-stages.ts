// Leading $match/$sort/$skip/$limit stages run here, on the original documents, before any
// copy is made for mingo: the common "filter then page" pipelines (and change-stream filters)
// stay fast over large collections and keep every BSON type untouched.
import type { Document } from "bson";
import { isNumeric, toNumber } from "./bson-types.js";
import { compileFilter, type FilterOptions } from "./filter.js";
import { queryError } from "./query-error.js";
import { sortDocuments } from "./sort.js";

/** A stage compiled once from its argument, with the command's variables and collation. */
type NativeStage = (argument: unknown, options: FilterOptions) => (docs: Document[]) => Document[];

function count(argument: unknown, stage: string, minimum: number): number {
  const value = isNumeric(argument) ? toNumber(argument) : NaN;
  if (!Number.isInteger(value) || value < minimum) {
    throw queryError("BadValue", `invalid argument to ${stage} stage: ${String(argument)}`);
  }
  return value;
}

const NATIVE_STAGES: Record<string, NativeStage> = {
  $match: (filter, options) => {
    const matches = compileFilter(filter as Document, options);
    return (docs) => docs.filter(matches);
  },
  $sort: (spec, options) => (docs) => sortDocuments(docs, spec as Document, options.strings),
  $skip: (n) => {
    const skipped = count(n, "$skip", 0);
    return (docs) => docs.slice(skipped);
  },
  $limit: (n) => {
    const limit = count(n, "$limit", 1);
    return (docs) => docs.slice(0, limit);
  },
};

export interface NativeStages {
  run(docs: Document[]): Document[];
  /** How many of the pipeline's leading stages `run` covers. */
  consumed: number;
}

/** Compiles the pipeline's leading native stages once, for running over many inputs. */
export function compileLeadingNativeStages(stages: Document[], options: FilterOptions = {}): NativeStages {
  const compiled: ((docs: Document[]) => Document[])[] = [];
  for (const stage of stages) {
    const [name] = Object.keys(stage);
    const compile = NATIVE_STAGES[name];
    if (compile === undefined) break;
    compiled.push(compile(stage[name], options));
  }
  return {
    run: (docs) => compiled.reduce((current, stage) => stage(current), docs),
    consumed: compiled.length,
  };
}
