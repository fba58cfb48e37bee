/** Consecutive groups of at most `size` elements, in order (size > 0). */
export function inGroupsOf<T>(elements: readonly T[], size: number): T[][] {
  const groups: T[][] = [];
  for (let start = 0; start < elements.length; start += size)
    groups.push(elements.slice(start, start + size));
  return groups;
}
