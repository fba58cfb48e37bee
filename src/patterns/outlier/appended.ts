// What an update event shows a source gained past its threshold, from the entries it set by
// position (positionsSet): a `$push` onto a source holding exactly `threshold` entries sets
// "<array>.<threshold>" and on, one key per entry. Anything else (a gap, positions that start
// further on because an earlier push is still uncorrected, a rewritten array) shows too
// little, and the correction reads the source instead.
import type { OutlierRule } from "./rule.js";

/** The entries set at positions threshold, threshold + 1, … with none missing; undefined otherwise. */
export function appendedPastThreshold(
  rule: OutlierRule,
  positionsSet: ReadonlyMap<string, unknown> | undefined,
): unknown[] | undefined {
  if (!positionsSet) return undefined;
  const prefix = `${rule.arrayField}.`;
  const pastThreshold = [...positionsSet.keys()].filter(
    (key) => key.startsWith(prefix) && Number(key.slice(prefix.length)) >= rule.threshold,
  );
  const appended: unknown[] = [];
  for (let position = rule.threshold; positionsSet.has(`${prefix}${position}`); position++)
    appended.push(positionsSet.get(`${prefix}${position}`));
  return appended.length > 0 && appended.length === pastThreshold.length ? appended : undefined;
}
