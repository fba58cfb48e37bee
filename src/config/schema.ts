// The one configuration schema: it validates input and produces the TypeScript types.
// Every default is the seeds' (see ../shared/SPEC.md) and is written down here only.
//
// Each pattern's rule schema lives in its folder (src/patterns/<name>/rule.ts); the
// registry joins them into one discriminated union. load.ts reads files and environment.
import { z } from "zod";
import type { PatternRule } from "../patterns/driver.js";
import { builtInRuleSchema, defaultRules } from "../patterns/registry.js";
import { collectionName, positiveInt } from "./rule-fields.js";
import { checkRuleSet, withDefaultNames } from "./rule-set.js";
import { isMongoUri } from "./mongodb-uri.js";

export const configSchema = z
  .strictObject({
    /** Connection string; its path names the database. Unset: the embedded server is started. */
    mongodbUri: z
      .string()
      .refine(isMongoUri, {
        // A refinement's issue carries no "got": say it here (ConfigError masks the password).
        error: (issue) =>
          `expected a mongodb:// or mongodb+srv:// connection string, got ${JSON.stringify(issue.input)}`,
      })
      .optional(),
    /** Database watched when the URI names none. */
    database: z.string().min(1).default("test"),
    /** Collection holding resume tokens and the writer lease, one document per stream. */
    stateCollection: collectionName.default("pattern_sidecar_state"),
    http: z
      .strictObject({
        host: z.string().min(1).default("0.0.0.0"),
        port: z.number().int().min(0).max(65535).default(9464),
      })
      .prefault({}),
    logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    /** Corrections of different documents that may run at once. */
    concurrency: positiveInt.default(8),
    /** Attempts for one correction's transaction before it is counted as failed and retried later. */
    maxTransactionAttempts: positiveInt.default(10),
    /** Failed corrections of one target before it is parked and the stream moves past it. */
    parkAfterAttempts: positiveInt.default(8),
    /** Lease held by the one writing replica; another replica takes over after it expires. */
    leaseSeconds: positiveInt.default(15),
    rules: z
      .array(builtInRuleSchema)
      .min(1, "expected at least one rule")
      .transform(withDefaultNames)
      .prefault([...defaultRules]),
  })
  .superRefine(checkRuleSet);

/** The validated configuration. Rules are seen through PatternRule; each driver knows its own. */
export type Config = Omit<z.infer<typeof configSchema>, "rules"> & { rules: PatternRule[] };
