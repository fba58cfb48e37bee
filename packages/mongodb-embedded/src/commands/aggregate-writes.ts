// The writing stages of aggregate: $out replaces a collection's contents with the results
// (keeping its options and indexes), $merge folds them into a collection document by document.
import type { Document } from "bson";
import { applyUpdate, runPipeline, valuesEqual, withIdAhead } from "../query/index.js";
import { ServerError, ErrorCode } from "../errors.js";
import type { ServerState } from "../server-state.js";
import type { OperationScope } from "../sessions/operation-scope.js";
import { assertValidId, duplicateKey } from "../storage/document-limits.js";
import type { VisibleDocument } from "../storage/read-view.js";
import { documentKey, ID_INDEX_NAME, type StoredCollection } from "../storage/stored-collection.js";
import { withIdFirst } from "./write-results.js";

function target(db: string, spec: unknown, stage: string): { db: string; coll: string } {
  if (typeof spec === "string") return { db, coll: spec };
  const into = spec as Document | null;
  if (into && typeof into.coll === "string")
    return { db: typeof into.db === "string" ? into.db : db, coll: into.coll };
  throw new ServerError(ErrorCode.FailedToParse, "FailedToParse", `${stage} needs a target collection name`);
}

export function writeOut(
  server: ServerState,
  scope: OperationScope,
  db: string,
  spec: unknown,
  results: Document[],
): void {
  const to = target(db, spec, "$out");
  const docs = results.map(withIdFirst);
  const previous = server.catalog.collection(to.db, to.coll);
  if (previous) server.catalog.dropCollection(to.db, to.coll);
  const collection = server.catalog.createCollection(to.db, to.coll, previous?.options ?? {});
  for (const index of previous?.indexes() ?? []) collection.addIndex(index.spec);
  for (const doc of docs) {
    assertValidId(doc._id);
    scope.write(collection, documentKey(doc._id), null, doc, "insert");
  }
}

interface MergeSpec {
  into: { db: string; coll: string };
  on: string[];
  whenMatched: string | Document[];
  whenNotMatched: string;
}

function parseMerge(db: string, spec: unknown): MergeSpec {
  const raw = (typeof spec === "string" ? { into: spec } : spec) as Document;
  const on = raw.on === undefined ? ["_id"] : Array.isArray(raw.on) ? raw.on.map(String) : [String(raw.on)];
  return {
    into: target(db, raw.into, "$merge"),
    on,
    whenMatched: (raw.whenMatched as string | Document[] | undefined) ?? "merge",
    whenNotMatched: (raw.whenNotMatched as string | undefined) ?? "insert",
  };
}

export async function writeMerge(
  server: ServerState,
  scope: OperationScope,
  db: string,
  spec: unknown,
  results: Document[],
): Promise<void> {
  const merge = parseMerge(db, spec);
  const collection = server.catalog.ensureCollection(merge.into.db, merge.into.coll);
  for (const result of results) {
    const filter: Document = {};
    for (const field of merge.on) filter[field] = result[field];
    await scope.whenUnlocked(
      collection,
      () => scope.view.find(collection, filter),
      ([match]) => mergeResult(scope, collection, merge, result, match),
    );
  }
}

/** Folds one result into the collection, where `match` is the document it matched, if any. */
function mergeResult(
  scope: OperationScope,
  collection: StoredCollection,
  merge: MergeSpec,
  result: Document,
  match: VisibleDocument | undefined,
): void {
  if (!match) {
    if (merge.whenNotMatched === "discard") return;
    if (merge.whenNotMatched === "fail") {
      throw new ServerError(
        13113,
        "MergeStageNoMatchingDocument",
        "$merge could not find a matching document in the target collection",
      );
    }
    const doc = withIdFirst(result);
    scope.write(collection, documentKey(doc._id), null, doc, "insert");
    return;
  }
  if (merge.whenMatched === "fail")
    throw duplicateKey(collection, ID_INDEX_NAME, { _id: 1 }, { _id: match.doc._id });
  const merged = mergedDocument(match.doc, result, merge.whenMatched);
  if (merged === undefined) return;
  if (!valuesEqual(merged._id, match.doc._id)) {
    throw new ServerError(
      ErrorCode.ImmutableField,
      "ImmutableField",
      "$merge cannot change the _id of a matched document",
    );
  }
  scope.write(
    collection,
    match.key,
    match.doc,
    merged,
    merge.whenMatched === "replace" ? "replace" : "update",
  );
}

function mergedDocument(
  existing: Document,
  incoming: Document,
  mode: string | Document[],
): Document | undefined {
  if (Array.isArray(mode)) {
    return runPipeline([existing], mode, { collection: () => [], variables: { new: incoming } })[0];
  }
  switch (mode) {
    case "replace":
      return withIdAhead(existing._id, incoming);
    case "keepExisting":
      return undefined;
    case "merge":
      return applyUpdate(existing, { $set: incoming }, { isInsert: false });
    default:
      throw new ServerError(ErrorCode.BadValue, "BadValue", `unknown $merge whenMatched mode '${mode}'`);
  }
}
