// Sorting by a sort specification in BSON order. A field holding an array sorts by its
// smallest element ascending and its largest descending, as mongod's sort keys do. Under a
// collation, strings order (and pick the array's min/max) by the collation's comparator.
import type { Document } from "bson";
import { compareValues, type StringComparator } from "./bson-order.js";
import { isNumeric, isPlainDocument, toNumber } from "./bson-types.js";
import { anyValueAtPath, splitPath } from "./filter-path.js";
import { queryError } from "./query-error.js";

interface SortKey {
  readonly parts: string[];
  readonly direction: 1 | -1;
}

export function parseSortSpec(spec: Document): SortKey[] {
  if (!isPlainDocument(spec)) throw queryError("BadValue", "sort specification must be an object");
  return Object.entries(spec).map(([path, direction]) => {
    if (isPlainDocument(direction) && "$meta" in direction) {
      throw queryError("NotImplemented", `$meta sort on ${path} is not supported`);
    }
    const value = isNumeric(direction) ? toNumber(direction) : NaN;
    if (value !== 1 && value !== -1) {
      throw queryError("BadValue", `$sort key ordering must be 1 (for ascending) or -1 (for descending)`);
    }
    return { parts: splitPath(path), direction: value };
  });
}

/** The value a document sorts by for one key: missing is null; arrays give their min/max element. */
function sortKeyValue(doc: Document, key: SortKey, strings?: StringComparator): unknown {
  let chosen: unknown;
  let found = false;
  const consider = (value: unknown): void => {
    const candidate = value === undefined ? null : value;
    if (!found || compareValues(candidate, chosen, strings) * key.direction < 0) chosen = candidate;
    found = true;
  };
  anyValueAtPath(doc, key.parts, (value) => {
    if (Array.isArray(value)) {
      if (value.length === 0) consider(undefined);
      for (const element of value) consider(element);
    } else {
      consider(value);
    }
    return false;
  });
  return found ? chosen : null;
}

/** A stable sort (equal keys keep their input order); returns a new array. */
export function sortDocuments(docs: Document[], sort: Document, strings?: StringComparator): Document[] {
  const keys = parseSortSpec(sort);
  if (keys.length === 0) return docs.slice();
  const decorated = docs.map((doc, index) => ({
    doc,
    index,
    values: keys.map((key) => sortKeyValue(doc, key, strings)),
  }));
  decorated.sort((a, b) => {
    for (const [i, key] of keys.entries()) {
      const order = compareValues(a.values[i], b.values[i], strings);
      if (order !== 0) return order * key.direction;
    }
    return a.index - b.index;
  });
  return decorated.map((entry) => entry.doc);
}
