// The pieces every pattern's rule schema is built from (src/patterns/<name>/rule.ts), so that
// field names, collection names and thresholds are validated, and described, the same way.
import { z } from "zod";
import { quoted } from "../patterns/bson/quoted-value.js";

/** A refinement message that also says what was found (refinement issues carry no "got"). */
export function expectedGot(expectation: string) {
  return { error: (issue: { input: unknown }) => `${expectation}, got ${quoted(issue.input)}` };
}

// The planners and readers address top-level fields (`doc[field]`), so no dotted paths.
export const fieldName = z
  .string()
  .min(1, "expected a non-empty field name")
  .regex(/^[^$.][^.]*$/, "expected a top-level field name (no '.', not starting with '$')");

// MongoDB refuses these, or reserves them for itself: an empty name, `$` (and a leading
// one), NUL, and the `system.` prefix (its own collections).
export const collectionName = z
  .string()
  .min(1, "expected a non-empty collection name")
  .refine(
    (name) => !name.includes("$") && !name.includes("\0"),
    expectedGot("expected a collection name without '$' or NUL"),
  )
  .refine(
    (name) => !name.startsWith("system."),
    expectedGot("expected a collection name not starting with 'system.' (MongoDB's own)"),
  );

/** An integer from `min` to `max`; each message names the range (issues.ts adds the value found). */
export function intInRange(min: number, max: number) {
  const expected = `expected an integer from ${min} to ${max}`;
  return z.number().int(expected).min(min, expected).max(max, expected);
}

/**
 * Most entries a threshold or chunk may name. A 16 MiB document holds at most about a million
 * of the smallest entries, and each correction reads and rewrites an array whole: a bound
 * this far below either still catches a typo (1e15) before it silently disables a rule.
 */
export const MAX_ENTRIES = 100_000;
export const entryCount = intInRange(1, MAX_ENTRIES);

// Every document's own key: new chunks and buckets get theirs from the sidecar, so no rule
// field may be `_id` or inside it.
const ID = "_id";

function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}

/**
 * Rejects a rule whose fields collide: one that is `_id` (or in it), or two of `keys` that
 * are the same field or one inside the other (a count written over the array, a chunk
 * sequence over its reference). Each issue names both keys and the field.
 */
export function distinctFields<K extends string>(keys: readonly K[]) {
  return (rule: Record<K, string>, ctx: z.RefinementCtx): void => {
    keys.forEach((key, index) => {
      const field = rule[key];
      if (overlaps(field, ID)) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `expected a field other than ${JSON.stringify(ID)}, which the sidecar sets itself, got ${quoted(field)}`,
        });
        return;
      }
      const other = keys.slice(0, index).find((earlier) => overlaps(field, rule[earlier]));
      if (other === undefined) return;
      const how = field === rule[other] ? "which is also" : "overlapping";
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `expected a field of its own, got ${quoted(field)}, ${how} ${other} (${quoted(rule[other])})`,
      });
    });
  };
}

/** Keys every rule has, whatever its pattern. */
export const ruleBase = {
  /** Unique rule name; used in logs, metrics and the state collection. */
  name: z.string().min(1).optional(),
  /** Whether this rule is enforced (a disabled rule is validated but not watched). */
  enabled: z.boolean().default(true),
};
