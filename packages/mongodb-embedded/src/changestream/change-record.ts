// What the storage layer reports to the change log when a write commits. The change-stream
// module turns these into events of MongoDB's exact shape; storage knows nothing of events.
import type { Document } from "bson";
import type { RecordedUpdate } from "./update-description.js";

export type ChangeOperation =
  | "insert"
  | "update"
  | "replace"
  | "delete"
  | "drop"
  | "rename"
  | "dropDatabase"
  | "create"
  | "createIndexes"
  | "dropIndexes"
  | "modify";

export interface ChangeRecord {
  operationType: ChangeOperation;
  db: string;
  /** Absent for dropDatabase. */
  coll?: string;
  /** rename only: the new namespace. */
  to?: { db: string; coll: string };
  /** `{ _id }` of the document, for document operations. */
  documentKey?: Document;
  /** The document after the write: always for insert and replace, for update where imagesRecorded. */
  postImage?: Document;
  /** The document before the write, for update, replace and delete where imagesRecorded. */
  preImage?: Document;
  /** What an update changed (its updateDescription), always present for an update. */
  update?: RecordedUpdate;
  /**
   * Whether the collection had `changeStreamPreAndPostImages: { enabled: true }` when the
   * write happened: only then may fullDocumentBeforeChange / fullDocument "whenAvailable" /
   * "required" use the images above (mongod keeps no images otherwise).
   */
  imagesRecorded: boolean;
  /** Present when the write was part of a multi-document transaction. */
  lsid?: Document;
  txnNumber?: bigint;
}
