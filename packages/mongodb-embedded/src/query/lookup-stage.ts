// A $lookup joined on localField/foreignField (with or without a sub-pipeline), run as mongod
// runs it: for each input document, the equality on foreignField is a $match put in front of
// the sub-pipeline, and that $match with the sub-pipeline's own leading $match/$sort/$limit is
// one read of the foreign collection through its indexes. So a join costs what its matches
// cost, not what the foreign collection holds (mingo's $lookup reads the whole collection).
import type { Document } from "bson";
import { withAppendedField } from "./bson-size.js";
import { isPlainDocument, isRegex } from "./bson-types.js";
import type { LookupSpec } from "./lookup-spec.js";
import { splitLeadingRead } from "./native-stages.js";

/** A read of another collection of the database, as find reads it. */
export interface ForeignRead {
  filter: Document;
  sort?: Document;
  /** 0: no limit. */
  limit: number;
}

export interface ForeignReadResult {
  /** The matching documents, in `sort` order, at most `limit`. */
  docs: Document[];
  keysExamined: number;
  docsExamined: number;
  /** The index the read walked; undefined with `collectionScan` for a scan, or for a missing collection. */
  indexName?: string;
  collectionScan: boolean;
}

export type CollectionReader = (collection: string, read: ForeignRead) => ForeignReadResult;

/** What one $lookup stage's reads examined, as mongod's explain reports it per stage. */
export interface LookupStats {
  spec: LookupSpec;
  totalDocsExamined: number;
  totalKeysExamined: number;
  collectionScans: number;
  indexesUsed: Set<string>;
}

export type EqualityJoin = LookupSpec & { from: string; localField: string; foreignField: string };

export type DocumentsStage = (docs: Document[]) => Document[];

export interface JoinContext {
  readCollection: CollectionReader;
  /** Each compiled join adds its stats here (explain). */
  lookupStats?: LookupStats[];
}

/** A join this module runs: localField/foreignField, reading a named collection. A pipeline-only
 * $lookup (`let` + `pipeline`) stays with mingo, which evaluates its `let` per document. */
export function isEqualityJoin(spec: LookupSpec): spec is EqualityJoin {
  return spec.from !== undefined && spec.localField !== undefined && spec.foreignField !== undefined;
}

/**
 * Compiles the join once. `compileSubPipeline` compiles the stages after the pushed-down read
 * with a reader (this stage's counting one, so reads of nested joins count here too, as
 * mongod sums a sub-pipeline's plan stats into its $lookup's).
 */
export function compileEqualityJoin(
  spec: EqualityJoin,
  ctx: JoinContext,
  compileSubPipeline: (stages: Document[], reader: CollectionReader) => DocumentsStage,
): DocumentsStage {
  const stats = newStats(spec);
  ctx.lookupStats?.push(stats);
  const reader = countingReader(ctx.readCollection, stats);
  const { filter, sort, limit, rest } = splitLeadingRead(spec.pipeline ?? []);
  const runRest = rest.length > 0 ? compileSubPipeline(rest, reader) : undefined;
  const localPath = spec.localField.split(".");
  const asPath = spec.as.split(".");
  return (docs) =>
    docs.map((doc) => {
      const join = joinFilter(spec.foreignField, localValues(doc, localPath));
      const read = { filter: Object.keys(filter).length > 0 ? { $and: [join, filter] } : join, sort, limit };
      const found = reader(spec.from, read).docs;
      return withField(doc, asPath, runRest ? runRest(found) : found);
    });
}

function newStats(spec: LookupSpec): LookupStats {
  return { spec, totalDocsExamined: 0, totalKeysExamined: 0, collectionScans: 0, indexesUsed: new Set() };
}

function countingReader(read: CollectionReader, stats: LookupStats): CollectionReader {
  return (collection, query) => {
    const result = read(collection, query);
    stats.totalDocsExamined += result.docsExamined;
    stats.totalKeysExamined += result.keysExamined;
    if (result.collectionScan) stats.collectionScans += 1;
    if (result.indexName !== undefined) stats.indexesUsed.add(result.indexName);
    return result;
  };
}

/**
 * mongod's join condition for the local values: none (missing, or an empty array) is null,
 * which matches a null or missing foreignField; one is an equality; several are an $in, or an
 * $or of equalities when one is a regex (in $in a regex would match strings).
 */
export function joinFilter(foreignField: string, values: unknown[]): Document {
  if (values.length <= 1) return { [foreignField]: { $eq: values.length === 0 ? null : values[0] } };
  if (values.some(isRegex)) return { $or: values.map((value) => ({ [foreignField]: { $eq: value } })) };
  return { [foreignField]: { $in: values } };
}

/** Every value the local path reaches: arrays on the way and at the end are expanded. */
export function localValues(doc: unknown, parts: string[], depth = 0, found: unknown[] = []): unknown[] {
  if (depth === parts.length) {
    if (Array.isArray(doc)) found.push(...(doc as unknown[]));
    else if (doc !== undefined) found.push(doc);
    return found;
  }
  if (Array.isArray(doc)) for (const element of doc) localValues(element, parts, depth, found);
  else if (isPlainDocument(doc)) localValues(doc[parts[depth]!], parts, depth + 1, found);
  return found;
}

/** A copy of `doc` with `value` at the path, creating (or replacing non-document) parents, as
 * mongod sets the `as` field; `doc` itself is never written (it may be a stored version). */
function withField(doc: Document, parts: string[], joined: unknown): Document {
  const [head, ...tail] = parts;
  if (tail.length === 0 && !Object.hasOwn(doc, head!)) return withAppendedField(doc, head!, joined);
  const inner = doc[head!] as unknown;
  const child = tail.length === 0 ? joined : withField(isPlainDocument(inner) ? inner : {}, tail, joined);
  return { ...doc, [head!]: child };
}
