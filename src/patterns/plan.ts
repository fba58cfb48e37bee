// What a pure planner returns: the writes that bring one document back into its pattern's
// shape. The I/O layer (src/stream/correction/apply.ts) runs them inside one transaction, after
// re-reading the state the plan was made from.
import type { Document } from "mongodb";

// A delete only removes a document whose contents another write of the same plan keeps (a
// loose bucket entry folded into a bucket, an overflow chunk without a sequence appended after
// the numbered ones), or a copy the sidecar itself made of an entry an application had
// deleted (a subset's copy-back, undone); deploy/mongodb-role.js grants remove on those
// collections alone. An upsert writes the sidecar's own records (records.ts), never an
// application's document.
export type Write =
  | { op: "insertOne"; collection: string; document: Document }
  | { op: "updateOne"; collection: string; filter: Document; update: Document; upsert?: true }
  | { op: "deleteOne"; collection: string; filter: Document };

/**
 * A record of the sidecar's own (the copy ledger's, subset/copy-ledger.ts) to keep in
 * `collection`, the state collection, with the plan's writes: the records of one transaction
 * are stored together (records.ts).
 */
export interface RecordWrite {
  op: "record";
  collection: string;
  record: Document;
}

/** What a plan writes: documents, and records of its own. */
export type PlannedWrite = Write | RecordWrite;

/** Kind of correction, a closed set (it is a metric label). */
export type CorrectionKind = "moved" | "split" | "trimmed" | "repaired" | "copied" | "folded" | "deleted";

/**
 * Why a correction was skipped, a closed set (a metric label): a document the rule cannot
 * plan for, or a delete whose change event had no pre-image to say what it concerned.
 */
export type SkipKind = "skipped_bad_document" | "skipped_no_pre_image";

/**
 * Documents a plan made without reading assumes do not exist (PatternDriver.planFromEvent):
 * checked in the transaction before its writes, which are undone if one does.
 */
export interface Absent {
  collection: string;
  filter: Document;
}

/**
 * Set on the plan of an `unsettled` correction (CorrectionTarget.unsettled) that left nothing
 * for the correction after the wait: that one is then not made (event-consumer.ts).
 */
interface Settling {
  leavesNothing?: true;
}

export type Plan =
  /** The document already has the pattern's shape. */
  | ({ outcome: "none" } & Settling)
  | ({
      outcome: "writes";
      kind: CorrectionKind;
      writes: PlannedWrite[];
      elementsMoved: number;
      absent?: Absent[];
      /** Part of a correction (PlanContext.maxWrites): a state within the rule's invariants, not yet its shape. */
      partial?: true;
    } & Settling)
  /** The document cannot be planned for (wrong types, missing dates): log, count, leave it. */
  | { outcome: "skip"; reason: string; kind?: SkipKind };
