// Walking a dotted path through a document the way the query engine does: arrays met on the
// way are expanded (`a.b` reaches `b` in every element of `a`), a numeric component also
// indexes into an array, and the leaf predicate sees each value the path reaches.
import { isPlainDocument } from "./bson-types.js";

/** A predicate over the value a path reaches; `undefined` means the path is missing. */
export type LeafPredicate = (value: unknown) => boolean;

export function splitPath(path: string): string[] {
  return path.split(".");
}

/** A dotted path's parent names and its last name: `a.b.c` is `[a, b]` and `c`. */
export function parentsAndLeaf(path: string): { parents: string[]; leaf: string } {
  const dot = path.lastIndexOf(".");
  return { parents: dot < 0 ? [] : path.slice(0, dot).split("."), leaf: path.slice(dot + 1) };
}

/** True when the leaf predicate holds for any value the path reaches in `doc`. */
export function anyValueAtPath(doc: unknown, parts: string[], leaf: LeafPredicate): boolean {
  return walk(doc, parts, 0, leaf);
}

function walk(value: unknown, parts: string[], index: number, leaf: LeafPredicate): boolean {
  const component = parts[index];
  if (component === undefined) return leaf(value);
  if (Array.isArray(value)) return walkArray(value, component, parts, index, leaf);
  if (isPlainDocument(value)) return walk(value[component], parts, index + 1, leaf);
  return leaf(undefined);
}

function walkArray(
  array: unknown[],
  component: string,
  parts: string[],
  index: number,
  leaf: LeafPredicate,
): boolean {
  if (isArrayIndex(component)) {
    const position = Number(component);
    if (position < array.length && walk(array[position], parts, index + 1, leaf)) return true;
  }
  let reachedAny = false;
  for (const element of array) {
    // Elements that are not documents have no fields: mongod skips them rather than seeing "missing".
    if (!isPlainDocument(element)) continue;
    reachedAny = true;
    if (walk(element[component], parts, index + 1, leaf)) return true;
  }
  return !reachedAny && !isArrayIndex(component) ? leaf(undefined) : false;
}

export function isArrayIndex(component: string): boolean {
  return component.length > 0 && /^\d+$/.test(component);
}

/** The value at a dotted path without array expansion except numeric indexes (for sort keys, $inc targets). */
export function valueAtPath(doc: unknown, path: string): unknown {
  let current: unknown = doc;
  for (const part of splitPath(path)) {
    if (Array.isArray(current) && isArrayIndex(part)) current = current[Number(part)];
    else if (isPlainDocument(current)) current = current[part];
    else return undefined;
  }
  return current;
}
