// A bucket rule: which array holds a bucket's entries, how many it may hold, and how new
// buckets are named. The defaults are the seed's (trades.history).
import { z } from "zod";
import { collectionName, fieldName, distinctFields, entryCount, ruleBase } from "../../config/rule-fields.js";

export const bucketRuleSchema = z
  .strictObject({
    ...ruleBase,
    pattern: z.literal("bucket"),
    collection: collectionName.default("trades"),
    arrayField: fieldName.default("history"),
    /** Most entries one bucket holds. */
    threshold: entryCount.default(10),
    /** Field that groups buckets (the `_id` is `<key>_<epoch seconds of the first entry>`). */
    keyField: fieldName.default("customerId"),
    /** Field of each entry holding its date. */
    dateField: fieldName.default("date"),
    countField: fieldName.default("count"),
    /**
     * Whether a document of the collection that is one entry on its own (the seed's schema
     * before buckets) is folded into a bucket. Unset: only for the seed's own rule
     * (loose-entries.ts, foldsLooseEntries).
     */
    looseEntries: z.boolean().optional(),
  })
  .superRefine(distinctFields(["arrayField", "countField", "keyField", "dateField"]));

export type BucketRule = Required<Omit<z.infer<typeof bucketRuleSchema>, "looseEntries">> & {
  looseEntries?: boolean;
};
