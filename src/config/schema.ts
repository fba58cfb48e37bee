// The one configuration schema: it validates input and produces the TypeScript types.
// Every default is the seeds' (see ../shared/SPEC.md) and is written down here only.
//
// Each pattern's rule schema lives in its folder (src/patterns/<name>/rule.ts); the
// registry joins them into one discriminated union. load.ts reads files and environment.
import { isIP } from "node:net";
import { MongoClient } from "mongodb";
import { z } from "zod";
import type { PatternRule } from "../patterns/driver.js";
import { builtInRuleSchema, defaultRules } from "../patterns/registry.js";
import { collectionName, expectedGot, intInRange } from "./rule-fields.js";
import { checkRuleSet, withDefaultNames } from "./rule-set.js";
import { isMongoUri, redactUriPasswords } from "./mongodb-uri.js";
import { quoted } from "../patterns/bson/quoted-value.js";

/** What the driver itself says of a connection string, without connecting; undefined if it accepts it. */
function driverRejection(uri: string): string | undefined {
  try {
    // The constructor parses and validates the string (hosts, ports, options) but opens nothing.
    new MongoClient(uri);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

// Change streams and transactions are refused on these, and they are not the application's.
const RESERVED_DATABASES = ["admin", "local", "config"];

export const databaseName = z
  .string()
  .min(1, "expected a non-empty database name")
  .max(63, "expected a database name of at most 63 characters")
  .refine(
    (name) => !/[/\\. "$*<>:|?\0]/.test(name),
    expectedGot('expected a database name without any of / \\ . " $ * < > : | ? or spaces'),
  )
  .refine((name) => !RESERVED_DATABASES.includes(name), {
    error: (issue) =>
      `expected the application's database, not ${quoted(issue.input)}, where MongoDB refuses change streams and transactions`,
  });

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

const httpHost = z
  .string()
  .refine(
    (host) => isIP(host) !== 0 || HOST_NAME.test(host),
    expectedGot("expected an IP address or a host name to listen on"),
  );

export const configSchema = z
  .strictObject({
    /**
     * Connection string; its path names the database when `database` is not set (on many
     * deployments the path is the authentication database). Unset: the embedded server.
     */
    mongodbUri: z
      .string()
      .refine(isMongoUri, {
        // A refinement's issue carries no "got": say it here (ConfigError masks the password).
        error: (issue) =>
          `expected a mongodb:// or mongodb+srv:// connection string, got ${quoted(redactUriPasswords(String(issue.input)))}`,
      })
      .superRefine((uri, ctx) => {
        const rejection = isMongoUri(uri) ? driverRejection(uri) : undefined;
        if (rejection)
          ctx.addIssue({ code: "custom", message: `the MongoDB driver cannot use it: ${rejection}` });
      })
      .optional(),
    /** Database watched; when unset, the URI's path, else "test". */
    database: databaseName.default("test"),
    /** Collection holding resume tokens and the writer lease, one document per stream. */
    stateCollection: collectionName.default("pattern_sidecar_state"),
    http: z
      .strictObject({
        host: httpHost.default("0.0.0.0"),
        port: intInRange(0, 65535).default(9464),
      })
      .prefault({}),
    logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    /** JSON lines for log collectors; pretty for a person at a terminal (needs pino-pretty). */
    logFormat: z.enum(["json", "pretty"]).default("json"),
    /** How long connecting keeps retrying an unreachable or refusing deployment before giving up. */
    connectTimeoutSeconds: intInRange(1, 3600).default(60),
    /**
     * Corrections of different documents that may run at once. At most the driver's pool of
     * 100 connections: more would only wait for one, each holding its session and backlog.
     */
    concurrency: intInRange(1, 100).default(8),
    /**
     * BSON MiB of documents that corrections may hold decoded at once (memory-budget.ts): each
     * costs several times its bytes in memory while it is corrected. One document larger than
     * the budget is corrected alone.
     */
    correctionMemoryMiB: intInRange(1, 1024).default(16),
    /** Attempts for one correction's transaction before it is counted as failed and retried later. */
    maxTransactionAttempts: intInRange(1, 100).default(10),
    /** Failed corrections of one target before it is parked and the stream moves past it. */
    parkAfterAttempts: intInRange(1, 100).default(8),
    /**
     * Lease held by the one writing replica; another replica takes over after it expires. At
     * most an hour: a standby waits that long, and timers past 2^31-1 ms would fire at once.
     */
    leaseSeconds: intInRange(1, 3600).default(15),
    /**
     * How many partitions the corrections' keys hash into (docs/semantics.md, "Partitions").
     * A replica alone, or holding the writer lease, owns every one of them.
     */
    partitions: intInRange(1, 1024).default(16),
    /**
     * Ignored: a takeover no longer depends on killSessions (src/stream/lease/lease.ts). Still
     * accepted, so that a configuration written for an earlier version loads (IGNORED_KEYS).
     */
    killSessionsRefused: z.enum(["retry", "waitTransactionLifetime"]).optional(),
    takeoverWaitSeconds: intInRange(1, 3600).optional(),
    rules: z
      .array(builtInRuleSchema)
      .min(1, "expected at least one rule")
      .transform(withDefaultNames)
      .prefault([...defaultRules]),
  })
  .superRefine(checkRuleSet);

/** Keys that load but no longer do anything, and why: the CLI warns of each one set. */
export const IGNORED_KEYS = {
  killSessionsRefused: "a takeover waits for the previous leader's transactions by itself",
  takeoverWaitSeconds: "a takeover waits for the previous leader's transactions by itself",
} as const;

/** The validated configuration. Rules are seen through PatternRule; each driver knows its own. */
export type Config = Omit<z.infer<typeof configSchema>, "rules"> & { rules: PatternRule[] };
