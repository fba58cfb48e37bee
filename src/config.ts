// The one configuration schema: it validates input and produces the TypeScript types.
// Every default is the seeds' (see ../shared/SPEC.md) and is written down here only.
import { z } from "zod";

const fieldName = z.string().min(1, "expected a non-empty field name");
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

export const defaultRules = [
  { pattern: "outlier" },
  { pattern: "bucket" },
  { pattern: "subset" },
] as const;

export const configSchema = z.strictObject({
  /** Connection string; its path names the database. Unset: the embedded server is started. */
  mongodbUri: z.string().min(1).optional(),
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
  rules: z.array(ruleSchema).min(1, "expected at least one rule").prefault([...defaultRules]),
});

export type OutlierRule = Required<z.infer<typeof outlierRuleSchema>>;
export type BucketRule = Required<z.infer<typeof bucketRuleSchema>>;
export type SubsetRule = Required<z.infer<typeof subsetRuleSchema>>;
export type Rule = OutlierRule | BucketRule | SubsetRule;
export type Config = Omit<z.infer<typeof configSchema>, "rules"> & { rules: Rule[] };
