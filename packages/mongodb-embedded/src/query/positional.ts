// The positional `$` stands for the first element of the array the query matched. We find it
// by re-running the query's clauses about that array against each element alone.
import type { Document } from "bson";
import type { StringComparator } from "./bson-order.js";
import { compileFilter } from "./filter.js";
import { parentsAndLeaf, valueAtPath } from "./filter-path.js";
import { queryError } from "./query-error.js";

const NO_MATCH = "The positional operator did not find the match needed from the query.";

export function positionalIndex(
  doc: Document,
  updatePath: string,
  filter: Document | undefined,
  strings?: StringComparator,
): number {
  const parts = updatePath.split(".");
  if (parts.filter((part) => part === "$").length > 1) {
    throw queryError("BadValue", `Too many positional (i.e. '$') elements found in path '${updatePath}'`);
  }
  const arrayPath = parts.slice(0, parts.indexOf("$")).join(".");
  const array = valueAtPath(doc, arrayPath);
  if (filter === undefined || !Array.isArray(array)) throw queryError("BadValue", NO_MATCH);
  const clauses = clausesAbout(filter, arrayPath);
  if (Object.keys(clauses).length === 0) throw queryError("BadValue", NO_MATCH);
  const matches = compileFilter(clauses, { strings });
  const index = array.findIndex((element) => matches(withArrayReplaced(doc, arrayPath, [element])));
  if (index < 0) throw queryError("BadValue", NO_MATCH);
  return index;
}

/** The filter's top-level clauses (also inside $and) on the array path or below it. */
function clausesAbout(filter: Document, arrayPath: string): Document {
  const clauses: Document = {};
  const collect = (source: Document): void => {
    for (const [key, value] of Object.entries(source)) {
      if (key === "$and" && Array.isArray(value)) value.forEach((clause: Document) => collect(clause));
      else if (key === arrayPath || key.startsWith(`${arrayPath}.`)) clauses[key] = value;
    }
  };
  collect(filter);
  return clauses;
}

function withArrayReplaced(doc: Document, arrayPath: string, replacement: unknown[]): Document {
  const { parents, leaf } = parentsAndLeaf(arrayPath);
  const copy: Document = { ...doc };
  let container: Document = copy;
  for (const part of parents) {
    container[part] = { ...(container[part] as Document) };
    container = container[part] as Document;
  }
  container[leaf] = replacement;
  return copy;
}
