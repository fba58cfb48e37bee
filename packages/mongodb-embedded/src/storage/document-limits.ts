// mongod's per-document rules on writes: the 16 MiB BSON limit, unique indexes (E11000 with
// keyPattern/keyValue), and an _id that must be present and not an array.
import type { Document } from "bson";
import { ServerError, ErrorCode } from "../errors.js";
import { bsonSize } from "../query/bson-size.js";
import type { ReadView } from "./read-view.js";
import type { SecondaryIndex } from "./secondary-index.js";
import { ID_INDEX_NAME, type StoredCollection } from "./stored-collection.js";

export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;

/** `doc` is about to be stored: its size is remembered for a later update's no-op check
 * (query/bson-size.ts). */
export function assertInsertSize(doc: Document): void {
  const size = bsonSize(doc);
  if (size > MAX_BSON_OBJECT_SIZE) {
    throw new ServerError(
      ErrorCode.BSONObjectTooLarge,
      "BSONObjectTooLarge",
      `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_OBJECT_SIZE}`,
    );
  }
}

/** `doc` is the update's result, about to be stored: its size is remembered (query/bson-size.ts). */
export function assertUpdatedSize(doc: Document): void {
  if (bsonSize(doc) > MAX_BSON_OBJECT_SIZE) {
    throw new ServerError(
      17419,
      "Location17419",
      `Resulting document after update is larger than ${MAX_BSON_OBJECT_SIZE}`,
    );
  }
}

export function assertValidId(id: unknown): void {
  if (
    Array.isArray(id) ||
    id instanceof RegExp ||
    (id as { _bsontype?: string } | null)?._bsontype === "BSONRegExp"
  ) {
    const kind = Array.isArray(id) ? "an array" : "a regex";
    throw new ServerError(
      ErrorCode.InvalidIdField,
      "InvalidIdField",
      `The '_id' value cannot be of type ${kind}`,
    );
  }
  const dollarField = firstDollarField(id);
  if (dollarField !== undefined) {
    throw new ServerError(
      ErrorCode.DollarPrefixedFieldName,
      "DollarPrefixedFieldName",
      `_id fields may not contain '$'-prefixed fields: ${dollarField} is not valid for storage.`,
    );
  }
}

function firstDollarField(value: unknown): string | undefined {
  if (value === null || typeof value !== "object" || value instanceof Date) return undefined;
  if ((value as { _bsontype?: string })._bsontype !== undefined) return undefined;
  for (const [name, field] of Object.entries(value)) {
    if (name.startsWith("$")) return name;
    const nested = firstDollarField(field);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/** Throws E11000 when `doc` (to be stored under `key`) collides in the _id or a unique index. */
export function assertUnique(
  collection: StoredCollection,
  key: string,
  doc: Document,
  isNewDocument: boolean,
  view: ReadView,
): void {
  if (isNewDocument && view.get(collection, key)) {
    throw duplicateKey(collection, ID_INDEX_NAME, { _id: 1 }, { _id: doc._id });
  }
  for (const index of collection.indexes()) {
    if (!index.spec.unique) continue;
    if (collidesInIndex(collection, index, key, doc, view)) {
      throw duplicateKey(collection, index.spec.name, index.spec.key, index.keyValue(doc));
    }
  }
}

function collidesInIndex(
  collection: StoredCollection,
  index: SecondaryIndex,
  key: string,
  doc: Document,
  view: ReadView,
): boolean {
  for (const holder of index.holdersOfSameKey(key, doc)) {
    const held = view.get(collection, holder);
    if (held && index.sharesKey(held, doc)) return true;
  }
  const overlay = view.overlay(collection);
  for (const [otherKey, other] of overlay ?? []) {
    if (otherKey !== key && other && index.sharesKey(other, doc)) return true;
  }
  // Versions at the snapshot of documents changed since: a key a delete committed after it
  // freed is still taken here, as mongod looks for duplicates at the snapshot (_checkDups).
  for (const [otherKey, other] of view.committedSinceSnapshot(collection)) {
    if (otherKey !== key && other && !overlay?.has(otherKey) && index.sharesKey(other, doc)) return true;
  }
  return false;
}

export function duplicateKey(
  collection: StoredCollection,
  indexName: string,
  keyPattern: Document,
  keyValue: Document,
): ServerError {
  return new ServerError(
    ErrorCode.DuplicateKey,
    "DuplicateKey",
    `E11000 duplicate key error collection: ${collection.ns} index: ${indexName} dup key: ${formatKeyValue(keyValue)}`,
    { extra: { keyPattern, keyValue } },
  );
}

function formatKeyValue(keyValue: Document): string {
  const fields = Object.entries(keyValue).map(([name, value]) => `${name}: ${formatValue(value)}`);
  return `{ ${fields.join(", ")} }`;
}

function formatValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null || value === undefined) return "null";
  const tag = (value as { _bsontype?: string })._bsontype;
  if (tag === "ObjectId") return `ObjectId('${String(value)}')`;
  if (tag === "Int32" || tag === "Double" || tag === "Long" || tag === "Decimal128") return String(value);
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
