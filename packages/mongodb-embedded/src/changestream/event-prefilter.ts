// The part of a stream's leading $match that an update event can be judged on before its
// post-image is looked up. A $match that reads no image runs before the lookup, as mongod
// moves it ahead of the lookup stage. One that reads fullDocument (or the whole event, $$ROOT)
// stays after the lookup; mongod then drops before it only what the conditions its oplog
// filter is rewritten from reject (namespace, operation type, updateDescription paths, but no
// $expr over updateDescription), so here too only those are judged first, and every update
// they let through is looked up, as mongod does.
//
// An event the $match accepts on clauses that read no image needs no second judgement: the
// verdict "matches" is given only when the $match, evaluated in its own order, would reach
// the same decision through the same clauses, none of which reads an image (so it holds
// with the post-image too, errors included). Such an event goes only through the stages after
// the $match.
import type { Document } from "bson";
import { compileFilter } from "../query/index.js";

/**
 * "rejects": the $match drops the event whatever its post-image (mongod's oplog filter).
 * "matches": the $match keeps it, whatever its post-image. "needsImage": look it up and run
 * the whole pipeline.
 */
export type PrefilterVerdict = "rejects" | "matches" | "needsImage";

export interface EventPrefilter {
  judge(event: Document): PrefilterVerdict;
  /** The stages an event the prefilter "matches" still goes through. */
  readonly afterMatch: Document[];
}

/**
 * Internally, "dropped" is a rejection reached after a clause that needs the image: the
 * $match, evaluated in order, would evaluate that clause first (it might fail), so within an
 * $or a later "matches" no longer decides; the event is still dropped before the lookup.
 */
type Verdict = PrefilterVerdict | "dropped";
type Judge = (event: Document) => Verdict;

const NEEDS_IMAGE: Judge = () => "needsImage";

/** The prefilter of a pipeline; one that does not start with $match judges nothing. */
export function compileEventPrefilter(stages: Document[]): EventPrefilter {
  const match = leadingMatch(stages);
  if (!match) return { judge: () => "needsImage", afterMatch: stages };
  // A $match that reads an image stays after the lookup in mongod, which then drops before it
  // only what its oplog filter, rewritten from the $match, rejects.
  const judge = judgeAll(match, readsImages(match) ? oplogRewritable : () => true);
  return {
    judge: (event) => {
      const verdict = judge(event);
      return verdict === "dropped" ? "rejects" : verdict;
    },
    afterMatch: stages.slice(1),
  };
}

/**
 * Whether mongod's oplog filter, rewritten from the stream's leading $match, drops the change
 * whose event has these fields (oplogView): judged before any of the event is built (its
 * resume token, update description, images), as mongod judges the oplog entry itself. Only a
 * rejection is acted on; what it lets through is built and judged by the whole $match. Null
 * for a pipeline that does not start with $match.
 */
export function compileOplogFilter(stages: Document[]): ((view: Document) => boolean) | null {
  const match = leadingMatch(stages);
  if (!match) return null;
  const judge = judgeAll(match, inOplogView);
  return (view) => {
    const verdict = judge(view);
    return verdict === "rejects" || verdict === "dropped";
  };
}

/** The filter of the pipeline's leading $match, if it starts with one. */
function leadingMatch(stages: Document[]): Document | undefined {
  const match = (stages[0] as Document | undefined)?.$match as unknown;
  return isDocument(match) ? match : undefined;
}

/** Which clauses may be judged before the lookup: those the server can evaluate without it. */
type Judgeable = (key: string, value: unknown) => boolean;

/** A filter document: the conjunction of its clauses, in their order. */
function judgeAll(filter: Document, judgeable: Judgeable): Judge {
  return allOf(Object.entries(filter).map(([key, value]) => judgeClause(key, value, judgeable)));
}

function judgeClause(key: string, value: unknown, judgeable: Judgeable): Judge {
  if (
    (key === "$and" || key === "$or") &&
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(isDocument)
  ) {
    const parts = value.map((part) => judgeAll(part, judgeable));
    return key === "$and" ? allOf(parts) : anyOf(parts);
  }
  // $nor and anything else that reads an image waits for it whole.
  if (readsImages(key) || readsImages(value) || !judgeable(key, value)) return NEEDS_IMAGE;
  const predicate = compileFilter({ [key]: value });
  return (event) => {
    try {
      return predicate(event) ? "matches" : "rejects";
    } catch {
      // The $match in its own order may never evaluate this clause: let it decide.
      return "needsImage";
    }
  };
}

/** As $and evaluates: the first rejection decides; an undecided part leaves it to the image. */
function allOf(parts: Judge[]): Judge {
  if (parts.length === 1) return parts[0]!;
  return (event) => {
    let undecided = false;
    for (const part of parts) {
      const verdict = part(event);
      if (verdict === "rejects") return undecided ? "dropped" : "rejects";
      if (verdict === "dropped") return "dropped";
      if (verdict === "needsImage") undecided = true;
    }
    return undecided ? "needsImage" : "matches";
  };
}

/** As $or evaluates: the first part that holds decides, if every part before it surely failed. */
function anyOf(parts: Judge[]): Judge {
  return (event) => {
    let dropped = false;
    for (const part of parts) {
      const verdict = part(event);
      if (verdict === "matches") return dropped ? "needsImage" : "matches";
      if (verdict === "needsImage") return "needsImage";
      if (verdict === "dropped") dropped = true;
    }
    return dropped ? "dropped" : "rejects";
  };
}

/**
 * Whether a filter key, or anything inside its value, may read a document image or the whole
 * event: a path into fullDocument, $$ROOT / $$CURRENT, or a field named by a computed
 * expression ($getField and its kin), which could name fullDocument.
 */
function readsImages(value: unknown): boolean {
  if (typeof value === "string") return /^\$?fullDocument|\$\$(ROOT|CURRENT)/.test(value);
  if (Array.isArray(value)) return value.some(readsImages);
  if (!isDocument(value)) return false;
  return Object.entries(value).some(
    ([key, inner]) => readsImages(key) || namesFieldByExpression(key, inner) || readsImages(inner),
  );
}

// The event fields mongod rewrites into its oplog filter: a path predicate on these, and an
// $expr whose field paths all start with the second set (mongo's
// src/mongo/db/pipeline/change_stream_rewrite_helpers.cpp: matchRewriteRegistry,
// exprRewriteRegistry, renameRegistry); an $expr over updateDescription is not among them.
const MATCH_REWRITTEN = new Set(["operationType", "documentKey", "updateDescription", "ns", "to"]);
const EXPR_REWRITTEN = new Set(["operationType", "documentKey", "ns", "to"]);
const RENAMED = ["clusterTime", "lsid", "txnNumber"];
for (const field of RENAMED) {
  MATCH_REWRITTEN.add(field);
  EXPR_REWRITTEN.add(field);
}

/** The event fields an oplog view has (change-event.ts, oplogView): those mongod reads from the entry itself. */
const OPLOG_VIEW = new Set(["operationType", "ns", "to", "documentKey", "lsid", "txnNumber"]);

/**
 * Clauses that read only event fields among `matchFields` (a path predicate, by its first name)
 * or, inside an $expr, among `exprFields` (every field path it reads).
 */
function readingOnly(matchFields: ReadonlySet<string>, exprFields = matchFields): Judgeable {
  const firstName = (path: string) => path.split(".")[0]!;
  return (key, value) =>
    key === "$expr"
      ? fieldPathsIn(value).every((path) => exprFields.has(firstName(path)))
      : !key.startsWith("$") && matchFields.has(firstName(key));
}

/** Whether the clause reads only fields of the oplog view, so that the view decides it as the event would. */
const inOplogView = readingOnly(OPLOG_VIEW);

/** Whether mongod's oplog filter can judge the clause, so that an event it rejects is never looked up. */
const oplogRewritable = readingOnly(MATCH_REWRITTEN, EXPR_REWRITTEN);

/** The field paths ("$a.b", without the "$") an aggregation expression reads; variables left out. */
function fieldPathsIn(value: unknown): string[] {
  if (typeof value === "string")
    return value.startsWith("$") && !value.startsWith("$$") ? [value.slice(1)] : [];
  if (Array.isArray(value)) return value.flatMap(fieldPathsIn);
  if (!isDocument(value)) return [];
  return Object.values(value).flatMap(fieldPathsIn);
}

function namesFieldByExpression(operator: string, argument: unknown): boolean {
  if (operator !== "$getField" && operator !== "$setField" && operator !== "$unsetField") return false;
  if (typeof argument === "string") return false;
  return !isDocument(argument) || typeof argument.field !== "string";
}

function isDocument(value: unknown): value is Document {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !("_bsontype" in value);
}
