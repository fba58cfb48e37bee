// Reading and ranking subset entries. An entry is identified by its idField within one
// source document, and ranked newest first by its sortField (a date), ties broken by the
// idField, descending, so that the ranking never depends on the order the reads return.
import { ObjectId, type Document } from "mongodb";
import type { SubsetRule } from "./rule.js";
import { bsonKey, describeValue, isPlainDocument, isValidDate, numberValue } from "../bson/bson-value.js";
import { fieldEntries, orderedDocument } from "@pattern-sidecar/bson-field-order";

/**
 * Why `entry` cannot be ranked, or null when it can. `where` names it in the reason: asked only
 * then, as a full-set document's name prints its `_id`, and every correction checks dozens.
 */
export function entryProblem(rule: SubsetRule, entry: unknown, where: () => string): string | null {
  if (!isPlainDocument(entry)) return `${where()} is ${describeValue(entry)}, expected a document`;
  const id = entry[rule.idField];
  if (id === undefined || id === null)
    return `${where()}.${rule.idField} is ${describeValue(id)}, expected a value`;
  const date = entry[rule.sortField];
  if (!isValidDate(date)) return `${where()}.${rule.sortField} is ${describeValue(date)}, expected a date`;
  return null;
}

/** The embedded form of a full-set document: the entry without its `_id` and reference. */
export function embeddedForm(rule: SubsetRule, fullSetDocument: Document): Document {
  // In the document's own field order (a rest spread would put integer-like names first).
  return orderedDocument(
    fieldEntries(fullSetDocument).filter(([name]) => name !== "_id" && name !== rule.referenceField),
  );
}

export function entryKey(rule: SubsetRule, entry: Document): string {
  return bsonKey(entry[rule.idField]);
}

// MongoDB's comparison order for the id types that occur in practice (numbers, strings,
// ObjectIds, dates); anything else falls back to its canonical text, which is deterministic.
const TYPE_RANK: Array<[(value: unknown) => boolean, number]> = [
  [(value) => numberValue(value) !== undefined, 1],
  [(value) => typeof value === "string", 2],
  [(value) => value instanceof ObjectId, 3],
  [(value) => typeof value === "boolean", 4],
  [(value) => value instanceof Date, 5],
];

function typeRank(value: unknown): number {
  return TYPE_RANK.find(([matches]) => matches(value))?.[1] ?? 6;
}

function compareIds(a: unknown, b: unknown): number {
  const byType = typeRank(a) - typeRank(b);
  if (byType !== 0) return byType;
  const [numberA, numberB] = [numberValue(a), numberValue(b)];
  if (numberA !== undefined && numberB !== undefined) return numberA - numberB;
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (a instanceof ObjectId && b instanceof ObjectId) return a.toHexString().localeCompare(b.toHexString());
  const [textA, textB] = typeof a === "string" && typeof b === "string" ? [a, b] : [bsonKey(a), bsonKey(b)];
  return textA < textB ? -1 : textA > textB ? 1 : 0;
}

/** Comparator putting the newest entry first (entries already checked by entryProblem). */
export function newestFirst(rule: SubsetRule): (a: Document, b: Document) => number {
  return (a, b) => {
    const byDate = (b[rule.sortField] as Date).getTime() - (a[rule.sortField] as Date).getTime();
    return byDate !== 0 ? byDate : compareIds(b[rule.idField], a[rule.idField]);
  };
}
