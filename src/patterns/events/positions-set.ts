// What an update event's entries set by position (positionsSet, "<field>.<index>") show of an
// array: an entry set at index `threshold` or further means the array held more than
// `threshold` entries once the update was applied (a `$push` past it, or a `$set` that padded).
/** Whether the update set an entry of `field` at an index of `threshold` or more. */
export function setPastThreshold(
  positionsSet: ReadonlyMap<string, unknown> | undefined,
  field: string,
  threshold: number,
): boolean {
  if (!positionsSet) return false;
  const prefix = `${field}.`;
  for (const key of positionsSet.keys())
    if (key.startsWith(prefix) && Number(key.slice(prefix.length)) >= threshold) return true;
  return false;
}
