// A subset rule: which array embeds the newest entries, how many, and where the full set
// lives. The defaults are the seed's (products.reviews -> reviews).
import { z } from "zod";
import {
  collectionName,
  fieldName,
  distinctFields,
  entryCount,
  intInRange,
  ruleBase,
} from "../../config/rule-fields.js";

export const subsetRuleSchema = z
  .strictObject({
    ...ruleBase,
    pattern: z.literal("subset"),
    collection: collectionName.default("products"),
    arrayField: fieldName.default("reviews"),
    /** How many of the newest entries stay embedded. */
    threshold: entryCount.default(10),
    fullSetCollection: collectionName.default("reviews"),
    /** Field of the full-set documents that holds the source document's _id. */
    referenceField: fieldName.default("product_id"),
    /** Field that identifies an entry within one source document. */
    idField: fieldName.default("review_id"),
    /** Entries are ordered by this field, newest (largest) first. */
    sortField: fieldName.default("published_date"),
    /**
     * A document deleted from the full set leaves the embedded array too (the next newest takes
     * its place). Needs change-stream pre-images on the full-set collection, which the sidecar
     * enables (collMod) at start; without the privilege the rule runs as if this were false.
     */
    propagateDeletes: z.boolean().default(true),
    /**
     * How long after a product's newest write its correction waits, so that an application
     * that pushes a review and then inserts it into the full set itself inserts it first.
     */
    settleMs: intInRange(0, 60_000).default(1000),
  })
  .superRefine(distinctFields(["arrayField", "referenceField", "idField", "sortField"]));

export type SubsetRule = Required<z.infer<typeof subsetRuleSchema>>;
