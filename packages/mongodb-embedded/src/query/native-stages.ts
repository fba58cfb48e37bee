// Leading $match/$sort/$skip/$limit stages, and a $project of field names alone, run here, on
// the original documents, before any copy is made for mingo: the common "filter then page"
// pipelines (and change-stream filters and projections) stay fast over large collections and
// keep every BSON type untouched.
import type { Document } from "bson";
import { isNumeric, isPlainDocument, toNumber } from "./bson-types.js";
import { deepCopy } from "./document-copy.js";
import { compileExpression } from "./expression.js";
import { compileFieldProjection, parseProjection } from "./field-projection.js";
import { compileNativeExpression } from "./native-expression.js";
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

/** A stage that runs natively only for some arguments: undefined leaves it to mingo. */
const NATIVE_FOR_SOME: Record<
  string,
  (argument: unknown, options: FilterOptions) => ((docs: Document[]) => Document[]) | undefined
> = {
  $project: (spec, options) => {
    if (!isPlainDocument(spec)) return undefined;
    const project = compileFieldProjection(spec) ?? compileComputedProjection(spec, options);
    return project && ((docs) => docs.map(project));
  },
};

/** The fields an inclusion keeps beside computed ones (`_id` alone by default); undefined for an exclusion. */
function includedFields(fields: Document): ((doc: Document) => Document) | undefined {
  const parsed = parseProjection(fields, undefined);
  if (!Object.keys(fields).some((name) => name !== "_id"))
    return (doc) => (parsed.excludeId || doc._id === undefined ? {} : { _id: doc._id });
  return parsed.mode === "inclusion" ? compileFieldProjection(fields) : undefined;
}

/** An operator expression (`{$op: ...}`), a field path or an array literal, as a $project field's value. */
function isComputedField(spec: unknown): boolean {
  if (typeof spec === "string") return spec.startsWith("$");
  if (Array.isArray(spec)) return true;
  if (!isPlainDocument(spec)) return false;
  const keys = Object.keys(spec);
  return keys.length === 1 && keys[0]!.startsWith("$");
}

/**
 * An inclusion $project with computed top-level fields whose expressions the native evaluator
 * covers: the included fields as compileFieldProjection keeps them, then each computed field
 * in the order given, left out where its value is missing, as mongod does. Any other shape
 * (dotted or `_id` computed fields, exclusions, a collation) stays with mingo.
 */
function compileComputedProjection(spec: Document, options: FilterOptions) {
  const entries = Object.entries(spec);
  const computed = entries.filter(([, value]) => isComputedField(value));
  const fields = Object.fromEntries(entries.filter(([, value]) => !isComputedField(value)));
  const nativeOnly = computed.every(
    ([name, value]) =>
      name !== "_id" && !name.includes(".") && compileNativeExpression(value, options.variables ?? {}),
  );
  if (computed.length === 0 || !nativeOnly || options.strings) return undefined;
  const included = includedFields(fields);
  if (!included || computed.some(([name]) => name in fields)) return undefined;
  const values = computed.map(
    ([name, value]) => [name, compileExpression(value, options.variables)] as const,
  );
  return (doc: Document): Document => {
    const result = included(doc);
    for (const [name, value] of values) {
      const computedValue = value(doc);
      // A copy: a field path's value is the stored document's own.
      if (computedValue !== undefined) result[name] = deepCopy(computedValue);
    }
    return result;
  };
}

/** The leading $match, $sort and $limit of a pipeline (each optional, in that order), which a
 * collection read answers as a find would (through an index when one fits), and the rest. */
export interface LeadingRead {
  filter: Document;
  sort?: Document;
  /** 0: no limit. */
  limit: number;
  rest: Document[];
}

export function splitLeadingRead(stages: Document[]): LeadingRead {
  let next = 0;
  // A malformed stage is left in `rest`, whose compilation reports it as mongod would.
  const take = (name: string, wellFormed: (value: unknown) => boolean): unknown => {
    const value = (stages[next] as Document | undefined)?.[name] as unknown;
    if (value === undefined || !wellFormed(value)) return undefined;
    next += 1;
    return value;
  };
  const filter = take("$match", isPlainDocument) as Document | undefined;
  const sort = take("$sort", (spec) => isPlainDocument(spec) && Object.keys(spec).length > 0);
  const limit = take("$limit", isNumeric);
  return {
    filter: filter ?? {},
    sort: sort as Document | undefined,
    limit: limit === undefined ? 0 : count(limit, "$limit", 1),
    rest: stages.slice(next),
  };
}

export interface NativeStages {
  run(docs: Document[]): Document[];
  /** How many of the pipeline's leading stages `run` covers. */
  consumed: number;
}

/** `table[name]` when the table has it as its own (not "constructor" or "toString"). */
function ownEntry<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

/** Compiles the pipeline's leading native stages once, for running over many inputs. */
export function compileLeadingNativeStages(stages: Document[], options: FilterOptions = {}): NativeStages {
  const compiled: ((docs: Document[]) => Document[])[] = [];
  for (const stage of stages) {
    const [name] = Object.keys(stage);
    if (name === undefined) break;
    const compile = ownEntry(NATIVE_STAGES, name) ?? ownEntry(NATIVE_FOR_SOME, name);
    const native = compile?.(stage[name], options);
    if (native === undefined) break;
    compiled.push(native);
  }
  return {
    run: (docs) => compiled.reduce((current, stage) => stage(current), docs),
    consumed: compiled.length,
  };
}
