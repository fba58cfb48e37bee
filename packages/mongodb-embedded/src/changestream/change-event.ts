// Turns a logged change into the event document mongod 7.0 produces for it, before the user's
// pipeline: the fields in mongod's order, images per fullDocument / fullDocumentBeforeChange.
import { Long, type Document } from "bson";
import { ServerError } from "../errors.js";
import type { LoggedChange } from "./change-log.js";
import type { ChangeRecord } from "./change-record.js";
import { encodeResumeToken, type StreamPosition } from "./resume-token.js";
import type { ChangeStreamOptions } from "./stream-options.js";
import { describeUpdate, isEmptyUpdate } from "./update-description.js";

export interface EventSources {
  /** The current committed document, for fullDocument: "updateLookup". */
  lookupDocument(db: string, coll: string, documentKey: Document): Document | null;
}

/**
 * The event for `change` without an update's post-image (see addPostImage), or null when
 * mongod would emit none (an update that changed nothing). `imagesKept` is false once the
 * change's images expired (ChangeLog.imagesKept).
 */
export function buildChangeEvent(
  change: LoggedChange,
  options: ChangeStreamOptions,
  imagesKept: boolean,
): Document | null {
  const { record } = change;
  const event: Document = {
    _id: encodeResumeToken(change.position),
    operationType: record.operationType,
    clusterTime: change.clusterTime,
    wallTime: change.wallTime,
  };
  if (record.operationType === "insert" || record.operationType === "replace") {
    event.fullDocument = requireField(record, "postImage");
  }
  addNamespaceFields(event, record);
  if (options.showExpandedEvents && record.operationType === "rename" && record.to) {
    event.operationDescription = { to: event.to as Document };
  }
  if (record.operationType === "update") {
    const description = describeUpdate(requireField(record, "update"), {
      showExpandedEvents: options.showExpandedEvents,
    });
    if (isEmptyUpdate(description)) return null;
    event.updateDescription = description;
  }
  addTransactionFields(event, record);
  addPreImage(event, record, options, imagesKept);
  return event;
}

/**
 * The fields of `record`'s event that mongod's oplog filter judges from the oplog entry
 * itself (event-prefilter.ts, compileOplogFilter), as the event has them: a stream drops a
 * change on these before building its event.
 */
export function oplogView(record: ChangeRecord): Document {
  const view: Document = { operationType: record.operationType };
  addNamespaceFields(view, record);
  addTransactionFields(view, record);
  return view;
}

// Written into the document given, in the event's order: every event is built through these.
function addNamespaceFields(target: Document, record: ChangeRecord): void {
  target.ns = record.coll === undefined ? { db: record.db } : { db: record.db, coll: record.coll };
  if (record.to) target.to = { db: record.to.db, coll: record.to.coll };
  if (record.documentKey) target.documentKey = record.documentKey;
}

function addTransactionFields(target: Document, record: ChangeRecord): void {
  if (record.txnNumber !== undefined) target.txnNumber = Long.fromBigInt(record.txnNumber);
  if (record.lsid !== undefined) target.lsid = record.lsid;
}

/** The event that ends a collection or database stream, right after the change that caused it. */
export function buildInvalidateEvent(change: LoggedChange, position: StreamPosition): Document {
  return {
    _id: encodeResumeToken(position),
    operationType: "invalidate",
    clusterTime: change.clusterTime,
    wallTime: change.wallTime,
  };
}

// mongod's pre-image stage runs before the post-image stage and appends the field at the end.
function addPreImage(
  event: Document,
  record: ChangeRecord,
  options: ChangeStreamOptions,
  imagesKept: boolean,
): void {
  const mode = options.fullDocumentBeforeChange;
  if (mode === "off" || !["update", "replace", "delete"].includes(record.operationType)) return;
  const preImage = record.imagesRecorded && imagesKept ? (record.preImage ?? null) : null;
  if (preImage === null && mode === "required") {
    throw missingImage(event, "a pre-image for all update, delete and replace events", "pre-image");
  }
  event.fullDocumentBeforeChange = preImage;
}

/** Whether addPostImage adds anything: an update's fullDocument, when the stream asks for one. */
export function needsPostImage(record: ChangeRecord, options: ChangeStreamOptions): boolean {
  return options.fullDocument !== "default" && record.operationType === "update";
}

// The post-image replaces fullDocument in place; mongod positions it before ns. Separate from
// buildChangeEvent so that a stream can drop an event on its cheap fields before the lookup.
// mongod computes a "whenAvailable"/"required" post-image from the pre-image, so it expires too.
export function addPostImage(
  event: Document,
  record: ChangeRecord,
  options: ChangeStreamOptions,
  sources: EventSources,
  imagesKept: boolean,
): void {
  if (!needsPostImage(record, options)) return;
  const mode = options.fullDocument;
  let postImage: Document | null;
  if (mode === "updateLookup") {
    postImage = sources.lookupDocument(record.db, record.coll ?? "", record.documentKey ?? {});
  } else {
    postImage = record.imagesRecorded && imagesKept ? (record.postImage ?? null) : null;
    if (postImage === null && mode === "required") {
      throw missingImage(event, "a post-image for all update events", "post-image");
    }
  }
  const { _id, operationType, clusterTime, wallTime, ...rest } = event;
  for (const key of Object.keys(event)) delete event[key];
  Object.assign(event, { _id, operationType, clusterTime, wallTime, fullDocument: postImage }, rest);
}

function requireField<K extends "postImage" | "update">(
  record: ChangeRecord,
  field: K,
): NonNullable<ChangeRecord[K]> {
  const value = record[field];
  if (!value) {
    throw new Error(
      `change record for ${record.operationType} on ${record.db}.${record.coll ?? ""} has no ${field} (contract: always present)`,
    );
  }
  return value;
}

function missingImage(event: Document, requirement: string, image: string): ServerError {
  const summary = JSON.stringify({
    operationType: event.operationType as unknown,
    ns: event.ns as unknown,
    clusterTime: String(event.clusterTime),
    txnNumber: event.txnNumber === undefined ? undefined : String(event.txnNumber),
  });
  // mongod: ErrorCodes::NoMatchingDocument from the add-pre/post-image stages.
  return new ServerError(
    47,
    "NoMatchingDocument",
    `Change stream was configured to require ${requirement}, but the ${image} was not found for event: ${summary}`,
  );
}
