// An outlier rule: which array may overflow, where the overflow goes, and how it is chunked.
// The defaults are the seed's (sales -> extra_sales).
import { z } from "zod";
import { collectionName, fieldName, distinctFields, entryCount, ruleBase } from "../../config/rule-fields.js";

export const outlierRuleSchema = z
  .strictObject({
    ...ruleBase,
    pattern: z.literal("outlier"),
    collection: collectionName.default("sales"),
    arrayField: fieldName.default("customers_purchased"),
    /** More than this many entries and the rest moves out. */
    threshold: entryCount.default(50),
    overflowCollection: collectionName.default("extra_sales"),
    /** Field of the overflow documents that holds the source document's _id. */
    referenceField: fieldName.default("book_id"),
    overflowArrayField: fieldName.default("customers_purchased_extra"),
    /** Set to true on a source document whose extras live in the overflow collection. */
    flagField: fieldName.default("has_extras"),
    /** Most entries one overflow document holds, so that none approaches 16 MiB. */
    chunkSize: entryCount.default(1000),
    /** Field of the overflow documents that orders the chunks of one source document. */
    sequenceField: fieldName.default("seq"),
  })
  .superRefine(
    distinctFields(["arrayField", "flagField", "referenceField", "sequenceField", "overflowArrayField"]),
  );

export type OutlierRule = Required<z.infer<typeof outlierRuleSchema>>;
