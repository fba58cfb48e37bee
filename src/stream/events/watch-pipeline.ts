// The server-side pipeline and options of the one database-wide change stream. One stream
// rather than one per collection: a single resume token is a single position to persist and
// resume from, and events of a product and of its reviews arrive in one commit order.
//
// The drivers' filters judge an update by its updateDescription where they can, and the
// fields a driver needs of an update are kept from it (updatedFields); only a driver that
// must see an update's whole document (needsUpdateLookup) makes the stream ask for
// `fullDocument: "updateLookup"`, which mongod pays for every update to a watched
// collection, before the `$match`. The events are then projected down to keys: a
// post-image can approach 16 MiB and an event over the BSON limit would break the stream
// (BSONObjectTooLarge), so it never leaves the server. The events of the sidecar's own
// transactions (on its session pool's sessions, and on those the other replicas' leases
// list) are dropped first, on `lsid.id`: mongod judges `lsid` in its oplog scan, before any
// lookup, so each replica's stream passes over the others' corrections cheaply. `lsid` and `txnNumber` stay, so that
// the sidecar knows other own transactions' events (own-writes.ts). A driver that must know
// what a deleted document held (preImageFields) makes the stream ask for pre-images
// ("whenAvailable": a delete from before they were enabled, or whose pre-image expired,
// still arrives, without one), projected down the same way.
import type { Binary, ChangeStreamOptions, Document } from "mongodb";
import type { PatternRule } from "../../patterns/driver.js";
import { positionsSetIn } from "../../patterns/events/update-filters.js";
import { driverOf } from "../../patterns/registry.js";
import type { StreamMode } from "./poison-events.js";
import { ownedEventExpression, ownsAll, type OwnedPartitions } from "../partitions/partition-filter.js";

/**
 * Events per getMore: enough to keep `concurrency` corrections busy between round trips,
 * few enough that a batch of projected events stays small and a stop is noticed soon.
 */
export const STREAM_BATCH_SIZE = 1000;

function projectedFields(rules: readonly PatternRule[]): Document {
  const fields = rules.flatMap((rule) => driverOf(rule).stream.projectedFields(rule));
  const preImage = rules.flatMap(preImageFieldsOf);
  return Object.fromEntries([
    ...fields.map((field) => [`fullDocument.${field}`, 1]),
    ...preImage.map((field) => [`fullDocumentBeforeChange.${field}`, 1]),
  ]);
}

function preImageFieldsOf(rule: PatternRule): string[] {
  return driverOf(rule).stream.preImageFields?.(rule) ?? [];
}

/**
 * Events that change the namespaces themselves: the runner re-creates what a drop or rename
 * took (collections, indexes), and an invalidate (dropDatabase) ends the stream, which
 * restarts after it with startAfter.
 */
export const NAMESPACE_EVENTS = ["drop", "rename", "dropDatabase", "invalidate"];

/** The fields the rules' drivers ask the stream for in `ask`, each once. */
function fieldsAskedFor(
  rules: readonly PatternRule[],
  ask: "positionFields" | "presenceFields" | "updatedFields",
): string[] {
  return [...new Set(rules.flatMap((rule) => driverOf(rule).stream[ask]?.(rule) ?? []))];
}

/**
 * The most an event may show of an update's entries (positionsSet). A `$push` of megabytes
 * would make the event itself pass mongod's 16 MiB limit and stop the stream; past this the
 * event names only the document, which its correction then reads.
 */
export const MAX_SHOWN_BYTES = 1024 * 1024;

/**
 * An update's entries set by array position in the fields drivers ask for (positionFields),
 * left out when they exceed MAX_SHOWN_BYTES; absent for other events.
 */
function positionsSet(rules: readonly PatternRule[]): Document {
  const fields = fieldsAskedFor(rules, "positionFields");
  if (fields.length === 0) return {};
  const small = { $lte: [{ $bsonSize: { set: "$$set" } }, MAX_SHOWN_BYTES] };
  return {
    positionsSet: {
      $let: { vars: { set: positionsSetIn(fields) }, in: { $cond: [small, "$$set", "$$REMOVE"] } },
    },
  };
}

/**
 * The names of the post-image's fields whose presence drivers ask for (presenceFields), those
 * it has, without their values; absent for an event without a post-image.
 */
function fieldsPresent(rules: readonly PatternRule[]): Document {
  const fields = fieldsAskedFor(rules, "presenceFields");
  if (fields.length === 0) return {};
  const missing = (field: string) => ({ $eq: [{ $type: `$fullDocument.${field}` }, "missing"] });
  const present = fields.map((field) => ({ $cond: [missing(field), [], [field]] }));
  const hasPostImage = { $eq: [{ $type: "$fullDocument" }, "object"] };
  return { fieldsPresent: { $cond: [hasPostImage, { $concatArrays: present }, "$$REMOVE"] } };
}

/**
 * An update's updatedFields and removedFields cut down to the fields drivers ask for
 * (updatedFields): what they need of an update whose post-image the stream does not look up.
 * The set ones as `{ k, v }` entries, as positionsSet has them.
 */
function updatedFieldsShown(rules: readonly PatternRule[]): Document {
  const fields = fieldsAskedFor(rules, "updatedFields");
  if (fields.length === 0) return {};
  const named = (input: unknown, name: string) => ({
    $filter: { input, cond: { $in: [name, { $literal: fields }] } },
  });
  const set = { $objectToArray: { $ifNull: ["$updateDescription.updatedFields", {}] } };
  const removed = { $ifNull: ["$updateDescription.removedFields", []] };
  const isUpdate = { $eq: ["$operationType", "update"] };
  return {
    fieldsSet: { $cond: [isUpdate, named(set, "$$this.k"), "$$REMOVE"] },
    fieldsRemoved: { $cond: [isUpdate, named(removed, "$$this"), "$$REMOVE"] },
  };
}

/**
 * Leaves out the events of transactions on `sessions` (their lsid `id`s): a correction's
 * writes are in shape, this replica's and the other replicas' alike, and an application's
 * write, on a session of its own, still passes. Events outside a transaction have no `lsid`
 * and pass too.
 */
function notOnSessions(sessions: readonly Binary[]): Document {
  return sessions.length > 0 ? { "lsid.id": { $nin: [...sessions] } } : {};
}

/**
 * Keeps the events of the owned partitions, and every namespace event; nothing when all are
 * owned, so that one replica's stream is what it was without partitions.
 */
function inPartitions(rules: readonly PatternRule[], partitions: OwnedPartitions | undefined): Document {
  if (!partitions || ownsAll(partitions)) return {};
  return {
    $expr: { $or: [{ $in: ["$operationType", NAMESPACE_EVENTS] }, ownedEventExpression(rules, partitions)] },
  };
}

/**
 * The stream's stages. Narrow (to get past a poison event, poison-events.ts), events keep
 * their keys and projected fields but not what they showed of an update's entries.
 * `correctionSessions`: the sessions whose transactions' events the server drops: this
 * replica's (SessionPool.ids) and those the other replicas' leases list.
 * `partitions`: the partitions whose events the server keeps (partition-filter.ts); all without.
 */
export function buildWatchPipeline(
  rules: readonly PatternRule[],
  mode: StreamMode = "full",
  correctionSessions: readonly Binary[] = [],
  partitions?: OwnedPartitions,
): Document[] {
  const namespaceEvents = { operationType: { $in: NAMESPACE_EVENTS } };
  return [
    {
      $match: {
        ...notOnSessions(correctionSessions),
        $or: [...rules.flatMap((rule) => driverOf(rule).stream.eventFilters(rule)), namespaceEvents],
        ...inPartitions(rules, partitions),
      },
    },
    {
      $project: {
        operationType: 1,
        ns: 1,
        to: 1,
        documentKeyRaw: ["$documentKey"],
        clusterTime: 1,
        wallTime: 1,
        lsid: 1,
        txnNumber: 1,
        ...projectedFields(rules),
        ...fieldsPresent(rules),
        ...updatedFieldsShown(rules),
        ...(mode === "full" ? positionsSet(rules) : {}),
      },
    },
  ];
}

/** The stream's options besides where it starts. */
export function watchOptions(rules: readonly PatternRule[]): ChangeStreamOptions {
  const lookup = rules.some((rule) => driverOf(rule).stream.needsUpdateLookup(rule));
  const preImages = rules.some((rule) => preImageFieldsOf(rule).length > 0);
  return {
    batchSize: STREAM_BATCH_SIZE,
    // What a plan made from an event writes comes undecoded (ProjectedChangeEvent): decoded
    // verbatim, it keeps its BSON types. Not promoteValues: false, which would also decode the
    // server's error codes as Int32 objects, where the driver's resume checks miss them.
    fieldsAsRaw: { documentKeyRaw: true, positionsSet: true },
    ...(lookup ? { fullDocument: "updateLookup" } : {}),
    ...(preImages ? { fullDocumentBeforeChange: "whenAvailable" } : {}),
  };
}
