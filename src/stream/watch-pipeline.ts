// The server-side pipeline of the one database-wide change stream. One stream rather than
// one per collection: a single resume token is a single position to persist and resume
// from, and events of a product and of its reviews arrive in one commit order.
//
// `fullDocument: "updateLookup"` puts the current document into update events before our
// stages run, so the planners' filters see what the document looks like now. The events are
// then projected down to keys: a post-image can approach 16 MiB and an event over the BSON
// limit would break the stream (BSONObjectTooLarge), so it never leaves the server.
import type { Document } from "mongodb";
import type { OutlierRule, Rule, SubsetRule } from "../config.js";
import { outlierNeedsCorrection } from "../patterns/outlier.js";
import { bucketNeedsCorrection } from "../patterns/bucket.js";
import { subsetNeedsCorrection } from "../patterns/subset.js";

const WRITES = { $in: ["insert", "update", "replace"] };

/** `$match` over an event (with fullDocument) that is true iff the document may break the rule. */
export function needsCorrectionFilter(rule: Rule): Document {
  switch (rule.pattern) {
    case "outlier":
      return outlierNeedsCorrection(rule);
    case "bucket":
      return bucketNeedsCorrection(rule);
    case "subset":
      return subsetNeedsCorrection(rule);
  }
}

/** True for an overflow document holding more than chunkSize entries. */
export function overfilledChunkFilter(rule: OutlierRule): Document {
  const entries = `$fullDocument.${rule.overflowArrayField}`;
  return {
    $expr: { $gt: [{ $size: { $cond: [{ $isArray: entries }, entries, []] } }, rule.chunkSize] },
  };
}

function eventFiltersOf(rule: Rule): Document[] {
  const source = {
    $and: [{ "ns.coll": rule.collection, operationType: WRITES }, needsCorrectionFilter(rule)],
  };
  switch (rule.pattern) {
    case "outlier":
      return [
        source,
        {
          $and: [{ "ns.coll": rule.overflowCollection, operationType: WRITES }, overfilledChunkFilter(rule)],
        },
      ];
    case "bucket":
      return [source];
    case "subset":
      // Any review written to the full set may belong among the newest embedded ones; which
      // it does depends on the product, so the correction decides (a no-op when it does not).
      return [source, { "ns.coll": rule.fullSetCollection, operationType: WRITES }];
  }
}

function referenceFieldsProjected(rules: readonly Rule[]): Document {
  const subsetRules = rules.filter((rule): rule is SubsetRule => rule.pattern === "subset");
  return Object.fromEntries(subsetRules.map((rule) => [`fullDocument.${rule.referenceField}`, 1]));
}

export function buildWatchPipeline(rules: readonly Rule[]): Document[] {
  return [
    { $match: { $or: rules.flatMap(eventFiltersOf) } },
    {
      $project: {
        operationType: 1,
        ns: 1,
        documentKey: 1,
        clusterTime: 1,
        ...referenceFieldsProjected(rules),
      },
    },
  ];
}
