// mongod refuses an update whose paths overlap ('a' and 'a.b', or 'a' twice, across any
// operators): ConflictingUpdateOperators (40).
import { queryError } from "./query-error.js";

export function assertNoConflictingPaths(paths: string[]): void {
  let previous: string | undefined;
  for (const current of [...paths].sort()) {
    if (previous !== undefined && (current === previous || current.startsWith(`${previous}.`))) {
      throw queryError(
        "ConflictingUpdateOperators",
        `Updating the path '${current}' would create a conflict at '${previous}'`,
      );
    }
    previous = current;
  }
}

/** mongod 5.0+ applies an update's fields in lexicographic order (numeric parts numerically). */
export function compareUpdatePaths(a: string, b: string): number {
  const partsA = a.split(".");
  const partsB = b.split(".");
  for (const [i, partA] of partsA.entries()) {
    const partB = partsB[i];
    if (partB === undefined) break;
    if (partA === partB) continue;
    const bothNumeric = /^\d+$/.test(partA) && /^\d+$/.test(partB);
    if (bothNumeric) return Number(partA) - Number(partB);
    return partA < partB ? -1 : 1;
  }
  return partsA.length - partsB.length;
}
