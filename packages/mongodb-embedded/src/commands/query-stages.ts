// The stages of mongod's explain plans for what a read did: COLLSCAN or IXSCAN (+ FETCH),
// then SORT when no index gave the order, SKIP, LIMIT and a projection. With executionStats,
// each stage carries the counts the read really produced.
import type { Document } from "bson";
import { describeBounds } from "../storage/index-scan.js";
import type { AccessPath, IndexPath, QueryResult } from "../storage/read-view.js";

export interface ReadShape {
  filter: Document;
  sort?: Document;
  skip: number;
  limit: number;
  projection?: Document;
  /** Documents the read returned. */
  nReturned: number;
}

/** The winning plan of a read; `withStats` adds executionStats' per-stage counts. */
export function planStages(query: QueryResult | undefined, shape: ReadShape, withStats: boolean): Document {
  const stats = (counts: Document) => (withStats ? counts : {});
  const found = query?.found.length ?? 0;
  let stage = accessStages(query, shape.filter, withStats);
  if (shape.sort && !query?.sorted) {
    const limitAmount = shape.limit > 0 ? { limitAmount: shape.skip + shape.limit } : {};
    const returned = Math.min(found, shape.limit > 0 ? shape.skip + shape.limit : found);
    stage = {
      stage: "SORT",
      sortPattern: shape.sort,
      memLimit: 104857600,
      ...limitAmount,
      type: "simple",
      ...stats({ nReturned: returned }),
      inputStage: stage,
    };
  }
  if (shape.skip > 0)
    stage = {
      stage: "SKIP",
      skipAmount: shape.skip,
      ...stats({ nReturned: shape.nReturned }),
      inputStage: stage,
    };
  if (shape.limit > 0 && (!shape.sort || query?.sorted))
    stage = {
      stage: "LIMIT",
      limitAmount: shape.limit,
      ...stats({ nReturned: shape.nReturned }),
      inputStage: stage,
    };
  if (shape.projection)
    stage = {
      stage: "PROJECTION_DEFAULT",
      transformBy: shape.projection,
      ...stats({ nReturned: shape.nReturned }),
      inputStage: stage,
    };
  return stage;
}

function accessStages(query: QueryResult | undefined, filter: Document, withStats: boolean): Document {
  const nReturned = query?.found.length ?? 0;
  const docsExamined = query?.docsExamined ?? 0;
  const filtered = Object.keys(filter).length > 0 ? { filter } : {};
  const path = query?.path ?? { stage: "COLLSCAN" };
  if (path.stage === "COLLSCAN")
    return {
      stage: "COLLSCAN",
      ...filtered,
      direction: "forward",
      ...(withStats ? { nReturned, docsExamined } : {}),
    };
  const keysExamined = query?.keysExamined ?? 0;
  const inputStage =
    path.stage === "OR"
      ? {
          stage: "OR",
          ...(withStats ? { nReturned } : {}),
          inputStages: path.branches.map((branch) =>
            ixscanStage(branch.path, branch.keysExamined, withStats),
          ),
        }
      : ixscanStage(path, keysExamined, withStats);
  return {
    stage: "FETCH",
    ...filtered,
    ...(withStats ? { nReturned, docsExamined } : {}),
    inputStage,
  };
}

function ixscanStage(path: IndexPath, keysExamined: number, withStats: boolean): Document {
  const scan = "scan" in path ? path.scan : undefined;
  const keyPattern = "lookup" in path ? path.lookup.order.pattern : path.scan.index.keyPattern;
  return {
    stage: "IXSCAN",
    keyPattern,
    indexName: indexNameOf(path),
    isMultiKey: scan?.index.multikey ?? false,
    isUnique: scan?.index.unique ?? false,
    isSparse: false,
    isPartial: false,
    indexVersion: 2,
    direction: scan?.backward ? "backward" : "forward",
    indexBounds: scan ? describeBounds(scan) : {},
    ...(withStats ? { nReturned: keysExamined, keysExamined } : {}),
  };
}

/** The name of the index a read walked (undefined for a collection scan). An equality lookup
 * knows only the key pattern: its name is mongod's default, field_direction pairs ("_id_" for
 * the _id index). */
export function indexNameOf(path: AccessPath): string | undefined {
  // An $or's read is named by its first branch's index: what callers ask is whether it scanned.
  if (path.stage === "OR") return indexNameOf(path.branches[0]!.path);
  if ("scan" in path) return path.scan.index.name;
  if (!("lookup" in path)) return undefined;
  const fields = Object.keys(path.lookup.order.pattern);
  if (fields.length === 1 && fields[0] === "_id") return "_id_";
  return Object.entries(path.lookup.order.pattern)
    .map(([field, direction]) => `${field}_${String(direction)}`)
    .join("_");
}

/** explain's executionStats section for a plan built with stats. */
export function executionStats(
  query: QueryResult | undefined,
  executionStages: Document,
  nReturned: number,
): Document {
  return {
    executionSuccess: true,
    nReturned,
    executionTimeMillis: 0,
    totalKeysExamined: query?.keysExamined ?? 0,
    totalDocsExamined: query?.docsExamined ?? 0,
    executionStages,
  };
}
