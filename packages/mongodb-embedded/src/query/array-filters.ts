// arrayFilters: `[{ "elem.grade": { $gte: 85 } }, { x: 5 }]`. Each filter names one identifier
// (the first path component of all its keys) and is matched against `{ <identifier>: element }`.
import type { Document } from "bson";
import type { StringComparator } from "./bson-order.js";
import { isPlainDocument } from "./bson-types.js";
import { compileFilter } from "./filter.js";
import { queryError } from "./query-error.js";

export function compileArrayFilters(
  arrayFilters: Document[] | undefined,
  strings?: StringComparator,
): Map<string, (element: unknown) => boolean> {
  const compiled = new Map<string, (element: unknown) => boolean>();
  for (const filter of arrayFilters ?? []) {
    if (!isPlainDocument(filter))
      throw queryError("FailedToParse", "arrayFilters must be an array of objects");
    const identifier = identifierOf(filter);
    if (compiled.has(identifier)) {
      throw queryError(
        "FailedToParse",
        `Found multiple array filters with the same top-level field name ${identifier}`,
      );
    }
    const matches = compileFilter(filter, { strings });
    compiled.set(identifier, (element) => matches({ [identifier]: element }));
  }
  return compiled;
}

function identifierOf(filter: Document): string {
  const identifiers = new Set(
    Object.keys(filter).flatMap((key) =>
      key.startsWith("$") ? topLevelOf(filter[key]) : [firstSegment(key)],
    ),
  );
  const [identifier, ...others] = identifiers;
  if (identifier === undefined || others.length > 0) {
    throw queryError("FailedToParse", "Error parsing array filter: expected a single top-level field name");
  }
  if (!/^[a-z][a-zA-Z0-9]*$/.test(identifier)) {
    throw queryError(
      "BadValue",
      `Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${identifier}'`,
    );
  }
  return identifier;
}

/** Identifiers named inside `$and`/`$or` clauses of an array filter. */
function topLevelOf(clauses: unknown): string[] {
  if (!Array.isArray(clauses)) return [];
  return clauses.flatMap((clause) => (isPlainDocument(clause) ? Object.keys(clause).map(firstSegment) : []));
}

/** The identifiers an update path uses, e.g. `grades.$[g].score` uses `g`. */
export function identifiersInPath(path: string): string[] {
  return [...path.matchAll(/\$\[([^\]]+)\]/g)].flatMap((match) => match[1] ?? []);
}

/** The path's first field name: `g` of `g.score`. */
function firstSegment(path: string): string {
  const dot = path.indexOf(".");
  return dot < 0 ? path : path.slice(0, dot);
}
