// What one change event asks the sidecar to correct. A target names the rule, the role of
// the document in the pattern and the _id of the document the correction starts from; its
// key orders corrections of the same document (src/stream/key-queue.ts).
import { EJSON } from "bson";
import type { Document } from "mongodb";
import type { BucketRule, OutlierRule, Rule, SubsetRule } from "../config.js";

export type CorrectionTarget =
  /** A source document whose array may have grown past the threshold. */
  | { role: "outlier-source"; rule: OutlierRule; collection: string; id: unknown }
  /** An overflow document an application overfilled past chunkSize. */
  | { role: "outlier-chunk"; rule: OutlierRule; collection: string; id: unknown }
  | { role: "bucket"; rule: BucketRule; collection: string; id: unknown }
  /** A product whose embedded subset may disagree with its full set. */
  | { role: "subset-source"; rule: SubsetRule; collection: string; id: unknown };

export function targetKey(target: CorrectionTarget): string {
  return `${target.rule.name}|${target.collection}|${EJSON.stringify({ id: target.id }, { relaxed: false })}`;
}

/** The projected change event (see watch-pipeline.ts): no post-image, only keys and references. */
export interface ProjectedChangeEvent {
  _id: Document;
  operationType: string;
  ns?: { db: string; coll?: string };
  documentKey?: { _id: unknown };
  clusterTime?: { getHighBitsUnsigned?: () => number };
  fullDocument?: Document;
}

/** Every correction one event may need; an event of a collection several rules watch yields several. */
export function targetsForEvent(rules: readonly Rule[], event: ProjectedChangeEvent): CorrectionTarget[] {
  const coll = event.ns?.coll;
  const id = event.documentKey?._id;
  if (coll === undefined || id === undefined) return [];
  return rules.flatMap((rule) => targetsOfRule(rule, coll, id, event.fullDocument));
}

function targetsOfRule(
  rule: Rule,
  coll: string,
  id: unknown,
  fullDocument: Document | undefined,
): CorrectionTarget[] {
  switch (rule.pattern) {
    case "outlier":
      if (coll === rule.collection) return [{ role: "outlier-source", rule, collection: coll, id }];
      if (coll === rule.overflowCollection) return [{ role: "outlier-chunk", rule, collection: coll, id }];
      return [];
    case "bucket":
      return coll === rule.collection ? [{ role: "bucket", rule, collection: coll, id }] : [];
    case "subset":
      if (coll === rule.collection) return [{ role: "subset-source", rule, collection: coll, id }];
      if (coll === rule.fullSetCollection) return subsetTargetsOfFullSetEntry(rule, fullDocument);
      return [];
  }
}

// A review written straight into the full set concerns its product: the correction starts
// from the product, so it shares the product's ordering key with pushes to the product.
function subsetTargetsOfFullSetEntry(
  rule: SubsetRule,
  fullDocument: Document | undefined,
): CorrectionTarget[] {
  const productId: unknown = fullDocument?.[rule.referenceField];
  if (productId === undefined || productId === null) return [];
  return [{ role: "subset-source", rule, collection: rule.collection, id: productId }];
}

/** Collections whose changes matter to the rules, and which field of each a target needs. */
export function watchedCollections(rules: readonly Rule[]): string[] {
  const names = rules.flatMap((rule) => {
    switch (rule.pattern) {
      case "outlier":
        return [rule.collection, rule.overflowCollection];
      case "bucket":
        return [rule.collection];
      case "subset":
        return [rule.collection, rule.fullSetCollection];
    }
  });
  return [...new Set(names)];
}
