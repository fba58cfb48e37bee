// Leading $match/$sort/$skip/$limit stages run here, on the original documents, before any
// copy is made for mingo: the common "filter then page" pipelines (and change-stream filters)
// stay fast over large collections and keep every BSON type untouched.
import type { Document } from "bson";
import { isNumeric, toNumber } from "./bson-types.js";
import { compileFilter, type FilterOptions } from "./filter.js";
import { queryError } from "./query-error.js";
import { sortDocuments } from "./sort.js";

/** A stage's argument, with the command's variables and collation. */
type NativeStage = (docs: Document[], argument: unknown, options: FilterOptions) => Document[];

function count(argument: unknown, stage: string, minimum: number): number {
  const value = isNumeric(argument) ? toNumber(argument) : NaN;
  if (!Number.isInteger(value) || value < minimum) {
    throw queryError("BadValue", `invalid argument to ${stage} stage: ${String(argument)}`);
  }
  return value;
}

const NATIVE_STAGES: Record<string, NativeStage> = {
  $match: (docs, filter, options) => docs.filter(compileFilter(filter as Document, options)),
  $sort: (docs, spec, options) => sortDocuments(docs, spec as Document, options.strings),
  $skip: (docs, n) => docs.slice(count(n, "$skip", 0)),
  $limit: (docs, n) => docs.slice(0, count(n, "$limit", 1)),
};

/** Runs the pipeline's leading native stages; returns their output and how many stages ran. */
export function runLeadingNativeStages(
  docs: Iterable<Document>,
  stages: Document[],
  options: FilterOptions = {},
): { docs: Document[]; consumed: number } {
  let current = Array.isArray(docs) ? (docs as Document[]) : Array.from(docs);
  let consumed = 0;
  for (const stage of stages) {
    const [name] = Object.keys(stage);
    const run = NATIVE_STAGES[name];
    if (run === undefined) break;
    current = run(current, stage[name], options);
    consumed++;
  }
  return { docs: current, consumed };
}
