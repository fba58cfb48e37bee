// Field paths as aggregation expressions resolve them (mongod's ExpressionFieldPath), which is
// not how query filters do: a path that crosses an array yields the array of what each
// document element holds at the rest of the path, skipping elements that are not documents
// (nested arrays included) and elements where the rest is missing.
import { isPlainDocument } from "./bson-types.js";

const hasOwn = Object.prototype.hasOwnProperty;

/** The value at `parts` below `value`; undefined when missing. */
export function readPath(value: unknown, parts: readonly string[], from = 0): unknown {
  let current = value;
  for (let i = from; i < parts.length; i++) {
    if (Array.isArray(current)) return readPathInArray(current, parts, i);
    const part = parts[i];
    if (!isPlainDocument(current) || part === undefined) return undefined;
    // Own fields only: a document's "constructor" or "toString" is not its prototype's.
    current = hasOwn.call(current, part) ? current[part] : undefined;
  }
  return current;
}

function readPathInArray(array: readonly unknown[], parts: readonly string[], from: number): unknown[] {
  const found: unknown[] = [];
  for (const element of array) {
    if (!isPlainDocument(element)) continue;
    const nested = readPath(element, parts, from);
    if (nested !== undefined) found.push(nested);
  }
  return found;
}
