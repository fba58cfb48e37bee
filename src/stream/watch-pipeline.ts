// The server-side pipeline of the one database-wide change stream. One stream rather than
// one per collection: a single resume token is a single position to persist and resume
// from, and events of a product and of its reviews arrive in one commit order.
//
// `fullDocument: "updateLookup"` puts the current document into update events before our
// stages run, so the drivers' filters see what the document looks like now. The events are
// then projected down to keys: a post-image can approach 16 MiB and an event over the BSON
// limit would break the stream (BSONObjectTooLarge), so it never leaves the server.
import type { Document } from "mongodb";
import type { PatternRule } from "../patterns/driver.js";
import { driverOf } from "../patterns/registry.js";

function projectedFields(rules: readonly PatternRule[]): Document {
  const fields = rules.flatMap((rule) => driverOf(rule).projectedFields(rule));
  return Object.fromEntries(fields.map((field) => [`fullDocument.${field}`, 1]));
}

/**
 * Events that change the namespaces themselves: the runner re-creates what a drop or rename
 * took (collections, indexes), and an invalidate (dropDatabase) ends the stream, which
 * restarts after it with startAfter.
 */
export const NAMESPACE_EVENTS = ["drop", "rename", "dropDatabase", "invalidate"];

export function buildWatchPipeline(rules: readonly PatternRule[]): Document[] {
  const namespaceEvents = { operationType: { $in: NAMESPACE_EVENTS } };
  return [
    { $match: { $or: [...rules.flatMap((rule) => driverOf(rule).eventFilters(rule)), namespaceEvents] } },
    {
      $project: {
        operationType: 1,
        ns: 1,
        to: 1,
        documentKey: 1,
        clusterTime: 1,
        ...projectedFields(rules),
      },
    },
  ];
}
