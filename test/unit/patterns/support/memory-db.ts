// A tiny in-memory stand-in for the collections a plan writes to, for tests of the pure
// planners only. It understands exactly the filters and update operators the planners are
// allowed to emit (equality, $size, $exists; $set, $unset, $inc, $push with $each and a
// $slice keeping the first entries, $pull of the entries equal to a document's fields,
// $currentDate, which reads the MemoryDb's clock; upserts by an equality filter; the records
// of a batch folded as the sidecar folds them, src/patterns/records.ts) and throws on anything else, so a planner that strays from them
// fails its tests. A batch of writes applies all or nothing, as the sidecar's transaction does.
import { BSON, ObjectId } from "bson";
import type { Document } from "mongodb";
import { bsonKey, isPlainDocument } from "../../../../src/patterns/bson/bson-value.js";
import type { PlannedWrite, Write } from "../../../../src/patterns/plan.js";
import { foldRecords } from "../../../../src/patterns/records.js";

function clone<T>(value: T): T {
  // Numbers come back as JS numbers, as the driver promotes them by default: an int64 too
  // large for one stays a Long, every digit kept.
  return BSON.deserialize(BSON.serialize({ v: value })).v as T;
}

/**
 * Equal for values MongoDB finds equal, numbers by value whatever their BSON type, but for
 * field order: documents kept here are JS objects, which list integer-like names first (the
 * integration tests hold the order against a server).
 */
export function valueKey(value: unknown): string {
  return bsonKey(fieldsSorted(value));
}

function fieldsSorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fieldsSorted);
  if (!isPlainDocument(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((name) => [name, fieldsSorted(value[name])]),
  );
}

const key = valueKey;

export class StaleWriteError extends Error {}
export class DuplicateKeyError extends Error {}

function matchesCondition(value: unknown, condition: unknown): boolean {
  const operators =
    condition !== null && typeof condition === "object" && !Array.isArray(condition)
      ? Object.keys(condition)
      : [];
  if (operators.length > 0 && operators.every((name) => name.startsWith("$"))) {
    return operators.every((name) => {
      const operand = (condition as Document)[name];
      if (name === "$size") return Array.isArray(value) && value.length === operand;
      if (name === "$exists") return (value !== undefined) === operand;
      throw new Error(`memory-db: unsupported filter operator ${name}`);
    });
  }
  return key(value) === key(condition);
}

export function matches(document: Document, filter: Document): boolean {
  return Object.entries(filter).every(([field, condition]) => {
    if (field.startsWith("$") || field.includes("."))
      throw new Error(`memory-db: unsupported filter key ${field}`);
    return matchesCondition(document[field], condition);
  });
}

function checkTopLevel(field: string): void {
  if (field.includes(".") || field.startsWith("$"))
    throw new Error(`memory-db: unsupported field path ${field}`);
}

// The server's clock, as $currentDate reads it: the tests' own, fixed.
export const MEMORY_DB_NOW = new Date(Date.UTC(2024, 0, 1));

const UPDATE_OPERATORS: Record<string, (doc: Document, field: string, operand: unknown) => void> = {
  $currentDate: (doc, field, operand) => {
    if (operand !== true) throw new Error("memory-db: $currentDate is only supported with true");
    doc[field] = new Date(MEMORY_DB_NOW);
  },
  $set: (doc, field, operand) => void (doc[field] = clone(operand)),
  $unset: (doc, field) => void delete doc[field],
  $inc: (doc, field, operand) =>
    void (doc[field] = ((doc[field] as number | undefined) ?? 0) + (operand as number)),
  $push: (doc, field, operand) => {
    const { $each: each, $slice: slice, ...others } = operand as { $each?: unknown; $slice?: unknown };
    const keepsFirst = slice === undefined || (Number.isInteger(slice) && (slice as number) >= 0);
    if (!Array.isArray(each) || !keepsFirst || Object.keys(others).length > 0) {
      throw new Error("memory-db: $push is only supported with $each, and a $slice of at least 0");
    }
    const current: unknown = doc[field] ?? [];
    if (!Array.isArray(current)) throw new Error(`memory-db: $push to non-array ${field}`);
    doc[field] = [...(current as unknown[]), ...clone(each)].slice(0, slice as number | undefined);
  },
  $pull: (doc, field, operand) => {
    const current: unknown = doc[field];
    if (!Array.isArray(current)) throw new Error(`memory-db: $pull from non-array ${field}`);
    doc[field] = (current as Document[]).filter((entry) => !matches(entry, operand as Document));
  },
};

export function applyUpdate(document: Document, update: Document): void {
  for (const [operator, fields] of Object.entries(update)) {
    const apply = UPDATE_OPERATORS[operator];
    if (!apply) throw new Error(`memory-db: unsupported update operator ${operator}`);
    for (const [field, operand] of Object.entries(fields as Document)) {
      checkTopLevel(field);
      apply(document, field, operand);
    }
  }
}

// An upsert inserts the filter's equalities with the update applied (only equalities here).
function upserted(filter: Document, update: Document): Document {
  const document = clone(filter);
  for (const condition of Object.values(document)) {
    const isOperator =
      condition !== null &&
      typeof condition === "object" &&
      Object.keys(condition as Document).some((k) => k.startsWith("$"));
    if (isOperator) throw new Error("memory-db: upsert filters must be equalities");
  }
  applyUpdate(document, update);
  return document;
}

export class MemoryDb {
  private collections = new Map<string, Document[]>();
  private readonly uniqueKeys: Record<string, string[][]>;

  constructor(uniqueKeys: Record<string, string[][]> = {}) {
    this.uniqueKeys = uniqueKeys;
  }

  /** Copies of the documents of `collection` (in insertion order) that pass `predicate`. */
  find(collection: string, predicate: (doc: Document) => boolean = () => true): Document[] {
    return (this.collections.get(collection) ?? []).filter(predicate).map(clone);
  }

  insertOne(collection: string, document: Document): void {
    const docs = this.collections.get(collection) ?? [];
    const stored = clone(document);
    if (stored._id === undefined) Object.assign(stored, { _id: new ObjectId() });
    const keySets = [["_id"], ...(this.uniqueKeys[collection] ?? [])];
    for (const fields of keySets) {
      const keyOf = (doc: Document) => key(fields.map((field) => doc[field] ?? null));
      if (docs.some((doc) => keyOf(doc) === keyOf(stored))) {
        throw new DuplicateKeyError(`duplicate key ${fields.join(",")} ${keyOf(stored)} in ${collection}`);
      }
    }
    this.collections.set(collection, [...docs, stored]);
  }

  /** Updates the first document matching `filter`; false when none matches (and no upsert). */
  updateOne(collection: string, filter: Document, update: Document, upsert = false): boolean {
    const target = (this.collections.get(collection) ?? []).find((doc) => matches(doc, filter));
    if (target) applyUpdate(target, update);
    else if (upsert) this.insertOne(collection, upserted(filter, update));
    return target !== undefined || upsert;
  }

  /** Deletes the first document matching `filter`; false when none matches. */
  deleteOne(collection: string, filter: Document): boolean {
    const docs = this.collections.get(collection) ?? [];
    const index = docs.findIndex((doc) => matches(doc, filter));
    if (index < 0) return false;
    docs.splice(index, 1);
    return true;
  }

  /** Applies every write or none: a guarded write matching nothing throws StaleWriteError. */
  apply(writes: readonly PlannedWrite[]): void {
    const before = new Map([...this.collections].map(([name, docs]) => [name, docs.map(clone)]));
    try {
      for (const write of foldRecords(writes)) this.applyWrite(write);
    } catch (error) {
      this.collections = before;
      throw error;
    }
  }

  private applyWrite(write: Write): void {
    if (write.op === "insertOne") return this.insertOne(write.collection, write.document);
    if (
      write.op === "updateOne" &&
      this.updateOne(write.collection, write.filter, write.update, write.upsert)
    )
      return;
    if (write.op === "deleteOne" && this.deleteOne(write.collection, write.filter)) return;
    throw new StaleWriteError(`${write.op} on ${write.collection} matched nothing: ${key(write.filter)}`);
  }
}
