// The document an upsert starts from: the filter's equality conditions (`{a: 1}`,
// `{a: {$eq: 1}}`, and those inside `$and`), with dotted paths expanded into embedded
// documents. Regexes and every other operator contribute nothing, as in mongod.
import type { Document } from "bson";
import { isPlainDocument, isRegex } from "./bson-types.js";
import { deepCopy } from "./document-copy.js";
import { parentsAndLeaf } from "./filter-path.js";
import { queryError } from "./query-error.js";

export function upsertSeed(filter: Document): Document {
  const seed: Document = {};
  collectEqualities(filter, seed);
  return seed;
}

function collectEqualities(filter: Document, seed: Document): void {
  for (const [key, condition] of Object.entries(filter)) {
    if (key === "$and" && Array.isArray(condition)) {
      condition.forEach((clause: Document) => collectEqualities(clause, seed));
      continue;
    }
    if (key.startsWith("$")) continue;
    const value = equalityValue(condition);
    if (value.found) setSeedPath(seed, key, value.value);
  }
}

function equalityValue(condition: unknown): { found: boolean; value?: unknown } {
  if (isRegex(condition)) return { found: false };
  if (!isPlainDocument(condition)) return { found: true, value: condition };
  const [first] = Object.keys(condition);
  const isOperatorDocument =
    first !== undefined && first.startsWith("$") && first !== "$ref" && first !== "$id";
  if (!isOperatorDocument) return { found: true, value: condition };
  if ("$eq" in condition && !isRegex(condition.$eq)) return { found: true, value: condition.$eq };
  return { found: false };
}

function setSeedPath(seed: Document, path: string, value: unknown): void {
  const { parents, leaf: last } = parentsAndLeaf(path);
  let container = seed;
  for (const part of parents) {
    if (container[part] === undefined) container[part] = {};
    if (!isPlainDocument(container[part])) {
      throw queryError(
        "NotSingleValueField",
        `cannot infer query fields to set, path '${path}' is matched twice`,
      );
    }
    container = container[part] as Document;
  }
  if (container[last] !== undefined) {
    throw queryError(
      "NotSingleValueField",
      `cannot infer query fields to set, path '${path}' is matched twice`,
    );
  }
  container[last] = deepCopy(value);
}
