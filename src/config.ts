// The one configuration schema: it validates input and produces the TypeScript types.
// Every default is the seeds' (see ../shared/SPEC.md) and is written down here only.
//
// loadConfig reads, in this order (later wins): the defaults; the file given by `--config
// FILE` or SIDECAR_CONFIG (YAML, or JSON, which is YAML); then these environment variables:
//   MONGODB_URI          mongodbUri (its path, if it names a database, wins over `database`)
//   SIDECAR_DATABASE     database
//   SIDECAR_HTTP_PORT    http.port
//   SIDECAR_LOG_LEVEL    logLevel
//   SIDECAR_CONCURRENCY  concurrency
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError, formatIssues, type ValueOrigin } from "./config-issues.js";
import { checkRuleSet, withDefaultNames } from "./config-rules.js";
import { databaseOfUri, isMongoUri, redactUriPasswords } from "./mongodb-uri.js";

export { ConfigError } from "./config-issues.js";

// The planners and readers address top-level fields (`doc[field]`), so no dotted paths.
const fieldName = z
  .string()
  .min(1, "expected a non-empty field name")
  .regex(/^[^$.][^.]*$/, "expected a top-level field name (no '.', not starting with '$')");
const collectionName = z.string().min(1, "expected a non-empty collection name");
const positiveInt = z.number().int("expected an integer").positive("expected a number above 0");

const ruleBase = {
  /** Unique rule name; used in logs, metrics and the state collection. */
  name: z.string().min(1).optional(),
  /** Whether this rule is enforced (a disabled rule is validated but not watched). */
  enabled: z.boolean().default(true),
};

export const outlierRuleSchema = z.strictObject({
  ...ruleBase,
  pattern: z.literal("outlier"),
  collection: collectionName.default("sales"),
  arrayField: fieldName.default("customers_purchased"),
  /** More than this many entries and the rest moves out. */
  threshold: positiveInt.default(50),
  overflowCollection: collectionName.default("extra_sales"),
  /** Field of the overflow documents that holds the source document's _id. */
  referenceField: fieldName.default("book_id"),
  overflowArrayField: fieldName.default("customers_purchased_extra"),
  /** Set to true on a source document whose extras live in the overflow collection. */
  flagField: fieldName.default("has_extras"),
  /** Most entries one overflow document holds, so that none approaches 16 MiB. */
  chunkSize: positiveInt.default(1000),
  /** Field of the overflow documents that orders the chunks of one source document. */
  sequenceField: fieldName.default("seq"),
});

export const bucketRuleSchema = z.strictObject({
  ...ruleBase,
  pattern: z.literal("bucket"),
  collection: collectionName.default("trades"),
  arrayField: fieldName.default("history"),
  /** Most entries one bucket holds. */
  threshold: positiveInt.default(10),
  /** Field that groups buckets (the `_id` is `<key>_<epoch seconds of the first entry>`). */
  keyField: fieldName.default("customerId"),
  /** Field of each entry holding its date. */
  dateField: fieldName.default("date"),
  countField: fieldName.default("count"),
});

export const subsetRuleSchema = z.strictObject({
  ...ruleBase,
  pattern: z.literal("subset"),
  collection: collectionName.default("products"),
  arrayField: fieldName.default("reviews"),
  /** How many of the newest entries stay embedded. */
  threshold: positiveInt.default(10),
  fullSetCollection: collectionName.default("reviews"),
  /** Field of the full-set documents that holds the source document's _id. */
  referenceField: fieldName.default("product_id"),
  /** Field that identifies an entry within one source document. */
  idField: fieldName.default("review_id"),
  /** Entries are ordered by this field, newest (largest) first. */
  sortField: fieldName.default("published_date"),
});

export const ruleSchema = z.discriminatedUnion("pattern", [
  outlierRuleSchema,
  bucketRuleSchema,
  subsetRuleSchema,
]);

export const defaultRules = [{ pattern: "outlier" }, { pattern: "bucket" }, { pattern: "subset" }] as const;

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
    /** Lease held by the one writing replica; another replica takes over after it expires. */
    leaseSeconds: positiveInt.default(15),
    rules: z
      .array(ruleSchema)
      .min(1, "expected at least one rule")
      .transform(withDefaultNames)
      .prefault([...defaultRules]),
  })
  .superRefine(checkRuleSet);

export type OutlierRule = Required<z.infer<typeof outlierRuleSchema>>;
export type BucketRule = Required<z.infer<typeof bucketRuleSchema>>;
export type SubsetRule = Required<z.infer<typeof subsetRuleSchema>>;
export type Rule = OutlierRule | BucketRule | SubsetRule;
export type Config = Omit<z.infer<typeof configSchema>, "rules"> & { rules: Rule[] };

export interface LoadConfigOptions {
  /** `--config FILE`; falls back to SIDECAR_CONFIG. */
  file?: string;
  env: NodeJS.ProcessEnv;
}

export const ENV_OVERRIDES: ReadonlyArray<{ variable: string; path: readonly string[]; numeric: boolean }> = [
  { variable: "MONGODB_URI", path: ["mongodbUri"], numeric: false },
  { variable: "SIDECAR_DATABASE", path: ["database"], numeric: false },
  { variable: "SIDECAR_HTTP_PORT", path: ["http", "port"], numeric: true },
  { variable: "SIDECAR_LOG_LEVEL", path: ["logLevel"], numeric: false },
  { variable: "SIDECAR_CONCURRENCY", path: ["concurrency"], numeric: true },
];

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(`${file}: cannot read the configuration file (${(error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    const reason = redactUriPasswords((error as Error).message.split("\n")[0] ?? "");
    throw new ConfigError(`${file}: not valid YAML or JSON: ${reason}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError(`${file}: expected a mapping of settings at the top level, got ${typeof parsed}`);
  }
  return parsed as Record<string, unknown>;
}

// Numeric variables become numbers when they look like integers; anything else is passed on
// as text so that validation reports it with the variable's name.
function envValue(text: string, numeric: boolean): unknown {
  return numeric && /^-?\d+$/.test(text.trim()) ? Number(text) : text;
}

function applyEnv(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, origins: ValueOrigin[]): void {
  for (const { variable, path, numeric } of ENV_OVERRIDES) {
    const text = env[variable];
    if (text === undefined || text === "") continue;
    let target = raw;
    for (const key of path.slice(0, -1)) {
      const next = target[key];
      target[key] = next !== null && typeof next === "object" && !Array.isArray(next) ? { ...next } : {};
      target = target[key] as Record<string, unknown>;
    }
    target[path[path.length - 1] as string] = envValue(text, numeric);
    origins.push({ path: path.join("."), source: variable });
  }
}

/** Reads, merges and validates the configuration; throws ConfigError listing every problem. */
export function loadConfig(options: LoadConfigOptions): Config {
  const file = options.file ?? (options.env.SIDECAR_CONFIG || undefined);
  const raw = file === undefined ? {} : readConfigFile(file);
  const origins: ValueOrigin[] = [];
  applyEnv(raw, options.env, origins);
  const result = configSchema.safeParse(raw);
  if (!result.success) throw new ConfigError(formatIssues(result.error.issues, raw, file, origins));
  const config = result.data as Config;
  const uriDatabase = config.mongodbUri === undefined ? undefined : databaseOfUri(config.mongodbUri);
  return uriDatabase === undefined ? config : { ...config, database: uriDatabase };
}

function describeRule(rule: Rule): string {
  const source = `${rule.collection}.${rule.arrayField}`;
  switch (rule.pattern) {
    case "outlier":
      return (
        `${source}: more than ${rule.threshold} entries move, in order, to ` +
        `${rule.overflowCollection}.${rule.overflowArrayField} (by ${rule.referenceField}, ordered by ` +
        `${rule.sequenceField}, at most ${rule.chunkSize} per document); ${rule.flagField} marks the source`
      );
    case "bucket":
      return (
        `${source}: at most ${rule.threshold} entries per bucket of ${rule.keyField}, new buckets ` +
        `_id'd "<${rule.keyField}>_<seconds of ${rule.dateField}>"; ${rule.countField} = entries`
      );
    case "subset":
      return (
        `${source}: embeds the ${rule.threshold} newest by ${rule.sortField}; every entry in ` +
        `${rule.fullSetCollection} (by ${rule.referenceField}, unique ${rule.idField})`
      );
  }
}

/** What `check-config` prints: the deployment (password masked) and one line per rule. */
export function describeRules(config: Config): string {
  const deployment =
    config.mongodbUri === undefined ? "embedded in-memory server" : redactUriPasswords(config.mongodbUri);
  const rules = config.rules.map((rule) => {
    const state = rule.enabled ? "" : " (disabled)";
    return `  ${rule.name} [${rule.pattern}]${state}\n    ${describeRule(rule)}`;
  });
  return [
    `deployment: ${deployment}`,
    `database: ${config.database}`,
    `rules (${rules.length}):`,
    ...rules,
  ].join("\n");
}
