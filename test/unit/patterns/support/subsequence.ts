/** Whether `expected` appears in `actual` in the same relative order (other elements between). */
export function isSubsequence(expected: readonly unknown[], actual: readonly unknown[]): boolean {
  let next = 0;
  for (const element of actual) if (next < expected.length && element === expected[next]) next += 1;
  return next === expected.length;
}

/** Elements sorted by their text, to compare two multisets. */
export function asMultiset(elements: readonly unknown[]): string[] {
  return elements.map((element) => JSON.stringify(element)).sort();
}
