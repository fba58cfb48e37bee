// How a rule finds the documents that refer to one source: by equality on the reference
// field, except that equality with null also matches documents that lack the field.
import type { Document } from "mongodb";

/** Documents whose `field` is `sourceId`; for a null `sourceId`, only those that hold a null. */
export function referringTo(field: string, sourceId: unknown): Document {
  return { [field]: sourceId === null ? { $eq: null, $exists: true } : sourceId };
}
