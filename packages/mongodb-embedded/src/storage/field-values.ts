// The values an index holds for one document at a dotted path. Like mongod's multikey
// indexes, an array along the path fans out to its elements (and an array at the end of the
// path is indexed whole too, since `{a: [1, 2]}` matches an equality on the array itself).
// A missing field is indexed as null, which is what an equality on null matches.
import type { Document } from "bson";

export function indexedValues(doc: Document, path: string, wholeArrays = true): unknown[] {
  const found: unknown[] = [];
  collect(doc, path.split("."), 0, found, wholeArrays);
  return found.length > 0 ? found : [null];
}

/** Whether a dotted path is absent from the document (sparse indexes skip such documents). */
export function isPathMissing(doc: Document, path: string): boolean {
  let value: unknown = doc;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
    value = (value as Record<string, unknown>)[part];
    if (value === undefined) return true;
  }
  return false;
}

function collect(
  value: unknown,
  parts: string[],
  depth: number,
  found: unknown[],
  wholeArrays: boolean,
): void {
  if (depth === parts.length) {
    if (!Array.isArray(value)) found.push(value === undefined ? null : value);
    else {
      if (wholeArrays || value.length === 0) found.push(value);
      for (const element of value) found.push(element);
    }
    return;
  }
  if (Array.isArray(value)) {
    for (const element of value) collect(element, parts, depth, found, wholeArrays);
    return;
  }
  if (value === null || typeof value !== "object") return;
  const next = (value as Record<string, unknown>)[parts[depth]!];
  if (next === undefined) found.push(null);
  else collect(next, parts, depth + 1, found, wholeArrays);
}
