// The pieces every pattern's rule schema is built from (src/patterns/<name>/rule.ts), so that
// field names, collection names and thresholds are validated, and described, the same way.
import { z } from "zod";

/** A refinement message that also says what was found (refinement issues carry no "got"). */
export function expectedGot(expectation: string) {
  return { error: (issue: { input: unknown }) => `${expectation}, got ${JSON.stringify(issue.input)}` };
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
export const positiveInt = z.number().int("expected an integer").positive("expected a number above 0");

/** Keys every rule has, whatever its pattern. */
export const ruleBase = {
  /** Unique rule name; used in logs, metrics and the state collection. */
  name: z.string().min(1).optional(),
  /** Whether this rule is enforced (a disabled rule is validated but not watched). */
  enabled: z.boolean().default(true),
};
