// mongod refuses an update whose paths overlap ('a' and 'a.b', or 'a' twice, across any
// operators): ConflictingUpdateOperators (40).
import { queryError } from "./query-error.js";

export function assertNoConflictingPaths(paths: string[]): void {
  const sorted = [...paths].sort();
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1];
    const current = sorted[i];
    if (current === previous || current.startsWith(`${previous}.`)) {
      throw queryError(
        "ConflictingUpdateOperators",
        `Updating the path '${current}' would create a conflict at '${previous}'`,
      );
    }
  }
}

/** mongod 5.0+ applies an update's fields in lexicographic order (numeric parts numerically). */
export function compareUpdatePaths(a: string, b: string): number {
  const partsA = a.split(".");
  const partsB = b.split(".");
  const shared = Math.min(partsA.length, partsB.length);
  for (let i = 0; i < shared; i++) {
    if (partsA[i] === partsB[i]) continue;
    const bothNumeric = /^\d+$/.test(partsA[i]) && /^\d+$/.test(partsB[i]);
    if (bothNumeric) return Number(partsA[i]) - Number(partsB[i]);
    return partsA[i] < partsB[i] ? -1 : 1;
  }
  return partsA.length - partsB.length;
}
