// Projection by field names alone (`{a: 1, "b.c": 1}`, `{a: 0}`), as find and $project share
// it: inclusion keeps the document's own field order and `_id` unless excluded; a dotted
// path through an array projects every embedded document of it (other elements are dropped);
// exclusion removes the paths and keeps the rest. Values keep their BSON types.
import type { Document } from "bson";
import { isNumeric, isPlainDocument, toNumber } from "./bson-types.js";
import { deepCopy } from "./document-copy.js";
import { queryError } from "./query-error.js";

export type FieldTree = { [field: string]: FieldTree | true };

/** An inclusion projection excludes nothing but `_id` (mongod's error 31254 otherwise). */
export function assertNoExclusion(excluded: FieldTree): void {
  const [field] = Object.keys(excluded);
  if (field !== undefined)
    throw queryError("Location31254", `Cannot do exclusion on field ${field} in inclusion projection`);
}

/**
 * A projection whose every value is a boolean or a number, compiled once; undefined for any
 * other (expressions, `$slice`, `$elemMatch`), which the caller evaluates its own way.
 */
export function compileFieldProjection(projection: Document): ((doc: Document) => Document) | undefined {
  const specs = Object.entries(projection);
  if (specs.length === 0 || !specs.every(([, spec]) => typeof spec === "boolean" || isNumeric(spec)))
    return undefined;
  const included: FieldTree = {};
  const excluded: FieldTree = {};
  let excludeId = false;
  for (const [path, spec] of specs) {
    const on = typeof spec === "boolean" ? spec : toNumber(spec) !== 0;
    if (path === "_id") excludeId = !on;
    else addPath(on ? included : excluded, path);
  }
  if (Object.keys(included).length > 0) assertNoExclusion(excluded);
  if (Object.keys(included).length > 0 || (!excludeId && "_id" in projection))
    return (doc) => {
      const result = include(doc, included);
      return !excludeId && doc._id !== undefined ? { _id: doc._id, ...result } : result;
    };
  return (doc) => {
    const result = exclude(doc, excluded);
    if (excludeId) delete result._id;
    return result;
  };
}

export function addPath(tree: FieldTree, path: string): void {
  const parts = path.split(".");
  let node = tree;
  for (const part of parts.slice(0, -1)) {
    const child = node[part];
    if (child === true) return;
    node = node[part] = child ?? {};
  }
  node[parts[parts.length - 1]] = true;
}

export function include(doc: Document, tree: FieldTree): Document {
  const result: Document = {};
  for (const key of Object.keys(doc)) {
    const node = tree[key];
    if (node === undefined) continue;
    if (node === true) result[key] = deepCopy(doc[key]);
    else {
      const projected = includeNested(doc[key], node);
      if (projected !== undefined) result[key] = projected;
    }
  }
  return result;
}

function includeNested(value: unknown, tree: FieldTree): unknown {
  if (isPlainDocument(value)) return include(value, tree);
  if (Array.isArray(value)) {
    return value.filter((e) => isPlainDocument(e) || Array.isArray(e)).map((e) => includeNested(e, tree));
  }
  return undefined;
}

export function exclude(doc: Document, tree: FieldTree): Document {
  const result: Document = {};
  for (const key of Object.keys(doc)) {
    const node = tree[key];
    if (node === true) continue;
    result[key] = node === undefined ? deepCopy(doc[key]) : excludeNested(doc[key], node);
  }
  return result;
}

function excludeNested(value: unknown, tree: FieldTree): unknown {
  if (isPlainDocument(value)) return exclude(value, tree);
  if (Array.isArray(value)) return value.map((e) => excludeNested(e, tree));
  return deepCopy(value);
}
