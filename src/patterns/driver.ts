// What the rest of the sidecar knows of a pattern: one small interface that each folder
// under src/patterns/ implements. The change-stream runner, sweeps, the configuration and
// the metrics loop over drivers (registry.ts) and never ask which pattern a rule is.
import type {
  ClientSession,
  CreateIndexesOptions,
  Db,
  Document,
  IndexSpecification,
  Timestamp,
} from "mongodb";
import type { z } from "zod";
import type { CorrectionKind, Plan, SkipKind } from "./plan.js";

/** What every configured rule has, whatever its pattern. */
export interface PatternRule {
  /** Unique name: logs, metrics and stored state are keyed by it. */
  name: string;
  enabled: boolean;
  /** Which driver enforces the rule. */
  pattern: string;
  /** The collection whose documents the rule keeps in shape. */
  collection: string;
  arrayField: string;
  threshold: number;
}

/** One document to correct: the rule, the role the document plays in it, and its `_id`. */
export interface CorrectionTarget<R extends PatternRule = PatternRule> {
  rule: R;
  /** A name the driver gives the kind of document (e.g. "source", "chunk"). */
  role: string;
  /** Collection of the document the correction starts from. */
  collection: string;
  id: unknown;
  /**
   * What the event told that the documents no longer do (a deleted document's pre-image, in
   * part). A target with a detail is a correction of its own: it is never joined with
   * another of the same key (key-queue.ts), and it is parked with its detail.
   */
  detail?: Document;
  /**
   * Set when the change event that named the target shows it broke the rule when written
   * (PatternDriver.eventShowsBroken): its correction then opens the transaction at once,
   * without first reading to see whether anything is due.
   */
  due?: boolean;
  /**
   * What the event showed of the document, for the driver's planFromEvent (the entries an
   * update appended, say). Dropped when a later event of the same key joins the correction,
   * as it then tells only part of what happened.
   */
  shown?: Document;
  /**
   * Set on the correction that runs before the key's newest write is `settleMs` old
   * (Planning.settleMs): the driver plans only what an application's follow-up write cannot
   * race; the correction after the wait does the rest.
   */
  unsettled?: boolean;
}

/** Where a driver's plan reads and what it may write besides the rules' collections. */
export interface PlanContext {
  /** The correction's transaction; absent for the plain reads a preview plans from. */
  session?: ClientSession;
  /** The sidecar's state collection (config `stateCollection`): the copy ledger lives there. */
  stateCollection: string;
  /** The corrections' memory budget, which the documents read RAW enter before they are decoded. */
  budget?: ReadBudget;
  /**
   * A correction too large to commit at once (correction-parts.ts in src/stream/correction/):
   * a driver that can correct a document in parts plans at most this many writes, marking the
   * plan `partial`; its next plan, from a fresh read, continues. Others ignore it.
   */
  maxWrites?: number;
}

/**
 * Bounds the bytes of documents that corrections hold decoded (config `correctionMemoryMiB`):
 * a document's BSON size, known before it is decoded, enters before it is (memory-budget.ts
 * in src/stream/correction/).
 */
export interface ReadBudget {
  /** Whether `count` documents of any size (up to 16 MiB each) would be admitted now, without waiting. */
  admitsDocuments(count: number): boolean;
  /** Whether `bytes` more would leave what this correction holds within the whole budget. */
  holdsWithin(bytes: number): boolean;
  /** Whether `bytes` more would be admitted now, without waiting. */
  admitsBytes(bytes: number): boolean;
  /** Takes `bytes`, waiting while other corrections hold the budget. */
  admit(bytes: number): Promise<void>;
}

/** What a pattern's reader reads with: the transaction, and the memory budget. */
export type ReadContext = Pick<PlanContext, "session" | "budget">;

/** The change event as the watch pipeline projects it: keys, and the fields drivers ask for. */
export interface ProjectedChangeEvent {
  _id: Document;
  operationType: string;
  ns?: { db: string; coll?: string };
  /** A rename's new namespace. */
  to?: { db: string; coll?: string };
  /**
   * The document key `{ _id }`, undecoded BSON, as the one element of an array: the driver
   * hands over the documents in the arrays the stream names (fieldsAsRaw, watch-pipeline.ts)
   * as their bytes, and the targets decode them verbatim, so that what a plan made from the
   * event writes keeps its BSON types (an int64 `_id` named as an int64). `[null]` for an
   * event without a key (a drop, an invalidate).
   */
  documentKeyRaw?: unknown[];
  clusterTime?: Timestamp;
  /** When the primary applied the write, by its clock (MongoDB 6.0+). */
  wallTime?: Date;
  fullDocument?: Document;
  /** Of the fields drivers ask the presence of (presenceFields), those `fullDocument` has; absent without one. */
  fieldsPresent?: string[];
  /** A delete's or update's pre-image, projected down to the fields drivers ask for; absent or null without one. */
  fullDocumentBeforeChange?: Document | null;
  /** Present on the events of a multi-document transaction: its session and number. */
  lsid?: Document;
  txnNumber?: unknown;
  /** An update's updatedFields entries `{ k, v }` of the fields drivers ask for (updatedFields). */
  fieldsSet?: { k: string; v: unknown }[];
  /** Those fields an update removed. */
  fieldsRemoved?: string[];
  /**
   * An update's updatedFields entries `{ k, v }` of array positions ("<field>.<index>") of the
   * fields drivers ask for (positionFields), each undecoded BSON, as documentKeyRaw.
   */
  positionsSet?: unknown[];
}

/** One write to a watched collection, as a change event reports it. */
export interface WatchedWrite {
  /** insert, update, replace, or (where a driver's eventFilters let them through) delete. */
  operationType: string;
  collection: string;
  /** `_id` of the written document. */
  id: unknown;
  /** The projected post-image: only the fields the driver's projectedFields named. */
  fullDocument?: Document;
  /** Of the fields the driver's presenceFields named, those the post-image has (with fullDocument only). */
  fieldsPresent?: readonly string[];
  /** The projected pre-image (only the fields preImageFields named), when the server had one. */
  fullDocumentBeforeChange?: Document;
  /** An update's entries set by array position, by "<field>.<index>" (positionFields). */
  positionsSet?: ReadonlyMap<string, unknown>;
  /** An update's new values of the fields the driver's updatedFields named, where it set them. */
  fieldsSet?: Document;
  /** Those of the fields the driver's updatedFields named that an update removed. */
  fieldsRemoved?: readonly string[];
}

export interface IndexWanted {
  collection: string;
  keys: IndexSpecification;
  options?: CreateIndexesOptions;
}

/** One page of a sweep source: its candidates, and the key it reached. */
export interface SweepPage<R extends PatternRule = PatternRule> {
  targets: CorrectionTarget<R>[];
  /** The next page starts after this key; undefined when the page read nothing. */
  lastKey: unknown;
  /** Nothing lies after this page. */
  done: boolean;
}

/**
 * Candidates read a page at a time in the order of an indexed key, each page its own short
 * query (no cursor lives between pages, so none can time out), so that a sweep can note the
 * key it reached and continue after it.
 */
export interface SweepSource<R extends PatternRule = PatternRule> {
  /** Names the source among its rule's, in the checkpoint a sweep keeps (sweep-checkpoints.ts). */
  name: string;
  /** At most `limit` index keys examined after `after` (from the first when undefined). */
  page(db: Db, after: unknown, limit: number): Promise<SweepPage<R>>;
  /** How many candidates lie after `after`: counted, or an estimate; for the progress only. */
  count(db: Db, after: unknown): Promise<number>;
}

/**
 * A collection option (`collMod`) a rule relies on, such as change-stream pre-images. The
 * server may refuse it (the sidecar's user lacks the privilege): the rule then runs as
 * `fallback`, without what the option was for.
 */
export interface CollectionOptionWanted<R extends PatternRule = PatternRule> {
  collection: string;
  /** The collMod fields, e.g. `{ changeStreamPreAndPostImages: { enabled: true } }`. */
  options: Document;
  /** What the rule cannot do without it, for the warning. */
  neededFor: string;
  fallback: R;
}

/** Which kinds of correction (and skip) a rule counts for the collection its corrections start from. */
export interface CorrectionSeries {
  collection: string;
  kinds: (CorrectionKind | SkipKind)[];
}

/** What `migrate` reports per rule: entries moved, documents created, entries skipped. */
export interface MigrationReport {
  rule: string;
  moved: number;
  documentsCreated: number;
  skipped: number;
}

export interface MigrationOptions {
  dryRun: boolean;
  /** Runs `plan` in a transaction and applies what it returns (src/stream's transaction and apply). */
  commit: (plan: (session: ClientSession) => Promise<Plan>) => Promise<Plan>;
  onProgress: (report: MigrationReport) => void;
}

/**
 * Which change events a rule watches, what the stream hands over of them, and the targets
 * they name. An omitted hook means none.
 */
export interface StreamFilter<R extends PatternRule = PatternRule> {
  /** Collections whose writes may call for a correction. */
  watchedCollections(rule: R): string[];
  /**
   * `$match` conditions over change events, one per kind of event that may need a correction.
   * Inserts and replaces carry `fullDocument`; updates carry it only when the driver asks for
   * the lookup (needsUpdateLookup), otherwise only their updateDescription.
   */
  eventFilters(rule: R): Document[];
  /**
   * Whether eventFilters or targetsOf read `fullDocument` of update events, which makes the
   * stream ask for `fullDocument: "updateLookup"` (one more read per event on the server).
   */
  needsUpdateLookup(rule: R): boolean;
  /** Fields of `fullDocument` the driver's targetsOf needs after the events are projected down. */
  projectedFields(rule: R): string[];
  /**
   * Top-level fields of `fullDocument` whose presence alone targetsOf needs, not their value
   * (an array of entries, say, which may be large): the projected event names those present
   * (fieldsPresent).
   */
  presenceFields?(rule: R): string[];
  /**
   * Array fields whose entries an update set by position ("<field>.<index>" in updatedFields,
   * as a `$push` reports them) targetsOf needs: kept in the projected event (positionsSet).
   */
  positionFields?(rule: R): string[];
  /**
   * Top-level fields whose change by an update targetsOf needs without a post-image: what the
   * update set them to (fieldsSet) and which it removed (fieldsRemoved), from its
   * updateDescription, kept in the projected event.
   */
  updatedFields?(rule: R): string[];
  /**
   * Fields of `fullDocumentBeforeChange` targetsOf needs (of deletes its eventFilters let
   * through). Any at all makes the stream ask for `fullDocumentBeforeChange: "whenAvailable"`;
   * the pre-image is projected down to these on the server, as post-images are.
   */
  preImageFields?(rule: R): string[];
  /** The corrections one write to a watched collection calls for. */
  targetsOf(rule: R, write: WatchedWrite): CorrectionTarget<R>[];
  /**
   * Whether an event of `write` that passed eventFilters shows that `target` broke the rule
   * when it was written (not merely may have). Absent means no.
   */
  eventShowsBroken?(rule: R, write: WatchedWrite, target: CorrectionTarget<R>): boolean;
  /**
   * The key whose hash names the partition `target` is corrected in (src/stream/partitions/),
   * chosen so that corrections of the same documents share one. A function of the target
   * alone, so that every event naming the target names one partition. Absent means its `id`.
   */
  partitionKey?(rule: R, target: CorrectionTarget<R>): unknown;
  /**
   * Aggregation expressions over a change event of `collection` (as the stream's `$match`
   * sees it, before the projection) among whose values is the partitionKey of every target
   * targetsOf may name from it: the server keeps an event when one of them falls in a
   * replica's partitions. One that names no target only lets an event through for nothing;
   * a value of a type the hash does not take (a document) lets it through always. Absent
   * means the document key.
   */
  eventPartitionKeys?(rule: R, collection: string): unknown[];
}

/** How a target's correction is planned. An omitted hook means no (or: each target alone). */
export interface Planning<R extends PatternRule = PatternRule> {
  /** Reads the target's state (inside the correction's transaction when given a session) and plans. */
  plan(db: Db, target: CorrectionTarget<R>, context: PlanContext): Promise<Plan>;
  /**
   * How long, in milliseconds, a correction waits after the newest write its key's events
   * report (their wallTime; at most twice as long after its own event's), so that an
   * application's own follow-up write lands first (event-consumer.ts). A correction of the
   * target marked `unsettled` runs before the wait, for what needs none. Absent means none.
   */
  settleMs?(rule: R): number;
  /**
   * Whether corrections of distinct targets of `role` read and write disjoint documents, so
   * that several may share one transaction (src/stream/correction/correction-batch.ts). Absent means no.
   */
  independentTargets?(rule: R, role: string): boolean;
  /**
   * Plans several targets of `rule`, of one role that independentTargets declares, from reads
   * that serve them all (a command for the lot rather than one per target); the plans in the
   * order of `targets`. Absent: each is planned alone.
   */
  planMany?(db: Db, rule: R, targets: readonly CorrectionTarget<R>[], context: PlanContext): Promise<Plan[]>;
  /**
   * Whether a correction of `target` that its event did not show due reads first, outside a
   * transaction, to see whether anything is to write. No where the transaction's own read
   * decides as well and something is most often due: the preview would read the same again.
   * Absent means yes.
   */
  needsPreview?(rule: R, target: CorrectionTarget<R>): boolean;
  /**
   * Plans from what the event showed of the target (`shown`) alone, without reading, where
   * that is enough; undefined otherwise. Such a plan is a guess: its writes' guards and its
   * `absent` documents must fail, in the transaction, wherever the documents are not as it
   * assumed, and the correction then plans again from a read. Absent means never.
   */
  planFromEvent?(rule: R, target: CorrectionTarget<R>): Plan | undefined;
}

/** What a rule's collections need before anything is corrected, and again when they are made anew. */
export interface CollectionsSetup<R extends PatternRule = PatternRule> {
  /** Indexes the readers and the applications rely on. */
  indexes(rule: R): IndexWanted[];
  /** Collection options the rule relies on. Absent means none. */
  collectionOptions?(rule: R): CollectionOptionWanted<R>[];
}

/**
 * Records a pattern keeps in the sidecar's state collection (config `stateCollection`) for
 * its plans, which the core indexes and prunes without knowing what they are.
 */
export interface StateRecords {
  /** Names them in log lines. */
  name: string;
  /** Indexes they need in the state collection. */
  indexes(stateCollection: string): IndexWanted[];
  /**
   * Deletes those no event after `processedSeconds` (a cluster time up to which every event
   * has been processed) can need; how many it deleted.
   */
  prune(db: Db, stateCollection: string, processedSeconds: number): Promise<number>;
}

export interface PatternDriver<R extends PatternRule = PatternRule> {
  /** The `pattern` value of the rules this driver enforces. */
  readonly pattern: string;
  /** Validates one rule and fills in its defaults (a zod object with `pattern: z.literal(...)`). */
  readonly ruleSchema: z.ZodType;
  /** Rule keys naming collections the rule writes besides its own; no other rule may use them. */
  readonly ownedCollectionKeys: readonly string[];
  readonly stream: StreamFilter<R>;
  readonly planning: Planning<R>;
  readonly collections: CollectionsSetup<R>;
  /** Absent: the pattern keeps nothing in the state collection. */
  readonly stateRecords?: StateRecords;
  /** Where a sweep finds every document it must examine (one may appear in several sources). */
  sweepSources(rule: R): SweepSource<R>[];
  /** Moves documents in the schema the seed starts from into the pattern's shape (`migrate`). Absent: nothing to move. */
  migrate?(db: Db, rule: R, options: MigrationOptions): Promise<MigrationReport>;
  correctionSeries(rule: R): CorrectionSeries[];
  /** One line for `check-config`: what the rule enforces. */
  describe(rule: R): string;
}
