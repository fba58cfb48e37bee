// The part of a stream's leading $match that an event can be judged on before its post-image
// is looked up: namespace, operation type, updateDescription. Clauses that read fullDocument
// (or the whole event, $$ROOT) count as "may match", so the prefilter only ever rejects
// events the full $match would reject too; mongod likewise pushes such conditions down to
// the oplog scan, ahead of the lookup stage.
import type { Document } from "bson";
import { compileFilter, type DocumentPredicate } from "../query/index.js";

const MAY_MATCH: DocumentPredicate = () => true;

/** A predicate that is false only for events the pipeline's leading $match surely drops. */
export function compileEventPrefilter(stages: Document[]): DocumentPredicate {
  const match = (stages[0] as Document | undefined)?.$match as unknown;
  return isDocument(match) ? prefilterOf(match) : MAY_MATCH;
}

function prefilterOf(filter: Document): DocumentPredicate {
  const clauses = Object.entries(filter).map(([key, value]) => prefilterClause(key, value));
  return (event) => clauses.every((clause) => clause(event));
}

function prefilterClause(key: string, value: unknown): DocumentPredicate {
  if ((key === "$and" || key === "$or") && Array.isArray(value) && value.every(isDocument)) {
    const parts = value.map((part) => prefilterOf(part));
    return key === "$and"
      ? (event) => parts.every((part) => part(event))
      : (event) => parts.some((part) => part(event));
  }
  if (readsImages(key) || readsImages(value)) return MAY_MATCH;
  return compileFilter({ [key]: value });
}

/** Whether a filter key, or anything inside its value, reads a document image or the whole event. */
function readsImages(value: unknown): boolean {
  if (typeof value === "string") return /^\$?fullDocument|\$\$(ROOT|CURRENT)/.test(value);
  if (Array.isArray(value)) return value.some(readsImages);
  if (isDocument(value))
    return Object.entries(value).some(([key, inner]) => readsImages(key) || readsImages(inner));
  return false;
}

function isDocument(value: unknown): value is Document {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !("_bsontype" in value);
}
