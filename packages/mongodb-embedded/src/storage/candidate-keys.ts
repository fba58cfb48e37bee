// Which documents a filter can possibly match, from the _id index or a secondary index's first
// field, so that equality and $in lookups do not scan the collection (mongod's IXSCAN).
// Undefined means "no usable index: scan". Candidates are always re-checked against the filter.
// Every index here is keyed by binary comparison (the simple collation). Like mongod, which
// only uses an index whose collation matches the query's, a collated query looks strings up by
// scanning; values without strings compare the same under any collation and still use indexes.
import type { Document } from "bson";
import { canonicalKey } from "./canonical-key.js";
import type { IndexOrder } from "./index-order.js";
import type { StoredCollection } from "./stored-collection.js";

/** An index lookup: the documents it may yield, and the index whose key order they come in. */
export interface IndexLookup {
  keys: Set<string>;
  order: IndexOrder;
  /**
   * Whether the lookup would yield this version of a document, one the index does not hold (a
   * transaction's own write, or one committed after its snapshot). Absent for the _id index:
   * a document's key is its _id's canonical key, so `keys` already names every document that
   * could match, whichever version a reader sees.
   */
  mayYield?: (doc: Document) => boolean;
}

const ID_PATTERN = { _id: 1 };

/** The index (_id first, then secondary indexes in creation order) that answers `filter`. */
export function planLookup(
  collection: StoredCollection,
  filter: Document,
  collated = false,
): IndexLookup | undefined {
  const usable = (values: unknown[] | undefined) =>
    values !== undefined && !(collated && values.some(containsString));
  const idValues = equalityValues(filter, "_id");
  if (usable(idValues)) {
    const order = { pattern: ID_PATTERN, firstFieldValues: idValues! };
    return { keys: new Set(idValues!.map(canonicalKey)), order };
  }
  for (const index of collection.indexes()) {
    if (index.spec.options.sparse === true || index.spec.options.partialFilterExpression) continue;
    const values = equalityValues(filter, index.fields[0]!);
    if (!values || !usable(values)) continue;
    const keys = new Set<string>();
    for (const value of values) for (const key of index.lookup(value)) keys.add(key);
    const wanted = new Set(values.map(canonicalKey));
    return {
      keys,
      order: { pattern: index.spec.key, firstFieldValues: values },
      mayYield: (doc) => index.listsUnderAny(doc, wanted),
    };
  }
  return undefined;
}

/** The values `field` must equal for `filter` to match (from `field: v`, `$eq`, `$in`, `$and`). */
function equalityValues(filter: Document, field: string): unknown[] | undefined {
  if (Object.prototype.hasOwnProperty.call(filter, field)) {
    const values = conditionValues(filter[field]);
    if (values) return values;
  }
  if (Array.isArray(filter.$and)) {
    for (const clause of filter.$and as Document[]) {
      const values = clause && typeof clause === "object" ? equalityValues(clause, field) : undefined;
      if (values) return values;
    }
  }
  return undefined;
}

function conditionValues(condition: unknown): unknown[] | undefined {
  if (!isOperatorObject(condition)) return isRegex(condition) ? undefined : [condition];
  const operators = condition as Document;
  if ("$eq" in operators && !isRegex(operators.$eq)) return [operators.$eq];
  if (Array.isArray(operators.$in) && !operators.$in.some(isRegex)) return operators.$in as unknown[];
  return undefined;
}

function isOperatorObject(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  if ((value as { _bsontype?: string })._bsontype !== undefined || value instanceof Date) return false;
  const first = Object.keys(value)[0];
  return first !== undefined && first.startsWith("$");
}

/** Strings anywhere inside a value (an embedded document's or array's strings compare
 * under the collation too). */
function containsString(value: unknown): boolean {
  if (typeof value === "string") return true;
  if (Array.isArray(value)) return value.some(containsString);
  if (value === null || typeof value !== "object") return false;
  const tag = (value as { _bsontype?: string })._bsontype;
  if (tag === "BSONSymbol") return true;
  if (tag !== undefined || value instanceof Date) return false;
  return Object.values(value).some(containsString);
}

function isRegex(value: unknown): boolean {
  return value instanceof RegExp || (value as { _bsontype?: string } | null)?._bsontype === "BSONRegExp";
}
