// The pieces every pattern's rule schema is built from (src/patterns/<name>/rule.ts), so that
// field names, collection names and thresholds are validated, and described, the same way.
import { z } from "zod";

// The planners and readers address top-level fields (`doc[field]`), so no dotted paths.
export const fieldName = z
  .string()
  .min(1, "expected a non-empty field name")
  .regex(/^[^$.][^.]*$/, "expected a top-level field name (no '.', not starting with '$')");
export const collectionName = z.string().min(1, "expected a non-empty collection name");
export const positiveInt = z.number().int("expected an integer").positive("expected a number above 0");

/** Keys every rule has, whatever its pattern. */
export const ruleBase = {
  /** Unique rule name; used in logs, metrics and the state collection. */
  name: z.string().min(1).optional(),
  /** Whether this rule is enforced (a disabled rule is validated but not watched). */
  enabled: z.boolean().default(true),
};
