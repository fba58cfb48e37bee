// Subset pattern: the full set (one document per entry, with referenceField = source _id)
// holds every entry; the source embeds the `threshold` newest of them, newest first.
//
// - An embedded entry missing from the full set (matched by idField) is copied there first,
//   so trimming it from the source never loses it.
// - Once an entry is in the full set, the full set is the source of truth: an embedded copy
//   that differs from it (an application edited one side) is replaced by the full-set version.
// - The same idField embedded twice is one entry (the full set is keyed by it); twice with
//   different contents and no full-set copy, the sidecar cannot tell which is right: skip.
// - Any entry (embedded or in the full set) without a valid idField or date makes the
//   source a skip; an embedded entry with its own `_id` too (it would become the full-set
//   document's `_id`, shared by no one else's guarantee of uniqueness).
// - A delete in the full set being propagated (`deleted`) removes that entry: it is neither
//   copied back nor embedded, and the next newest takes its place. A full-set document that
//   holds the entry again is undone only if the copy ledger names it (the sidecar's own
//   copy-back, necessarily made after the delete, as the full set is unique by entry);
//   one the ledger does not name an application wrote again, and it stays.
// - With a copy ledger, every copy gets its `_id` here and is recorded in the same plan.
// - Guards: the source by `_id` + exact array size (or the array's absence); copies by the
//   unique `(referenceField, idField)` index of the full set; the undone copy-back by its
//   `_id` and entry, and its ledger record by the document that holds it.
import type { Document } from "mongodb";
import type { SubsetRule } from "./rule.js";
import { bsonKey, describeValue, printedKey, sameBsonValue } from "../bson/bson-value.js";
import { forgetCopy, recordCopy, type CopyLedger, type LedgeredCopy } from "./copy-ledger.js";
import { fieldEntries, orderedDocument } from "@pattern-sidecar/bson-field-order";
import { embeddedForm, entryKey, entryProblem, newestFirst } from "./entries.js";
import type { CorrectionKind, Plan, PlannedWrite, Write } from "../plan.js";

export interface SubsetState {
  source: Document;
  /**
   * Full-set documents of this source: every one whose idField is embedded, and at least the
   * `threshold` newest in the planner's ranking, ties included: `sort({ [sortField]: -1,
   * [idField]: -1 })`. Ties broken any other way (by `_id`, say) can hide a review that
   * belongs among the newest.
   */
  fullSet: Document[];
  /** A delete of a full-set document being propagated; its holder, if any, is in fullSet. */
  deleted?: DeletedEntry;
  /**
   * Set when fullSet holds only the newest (an unsettled correction's read): an embedded
   * entry outside them counts as not copied yet, and so stays embedded.
   */
  unreadEntries?: true;
}

export interface DeletedEntry {
  /** The idField value the deleted full-set document held (its pre-image's). */
  entryId: unknown;
  /**
   * The sidecar's copies (the ledger's) among the full-set documents holding the entry now.
   * With a deletion, fullSet holds at least the `threshold + 1` newest, so that the next
   * newest is there to take its place.
   */
  copies: LedgeredCopy[];
}

/** What a propagated delete removes: the entry, and the sidecar's copy-back of it if there is one. */
interface Removal {
  key: string;
  copyBack: Document | undefined;
  /** The writes that undo the copy-back, and record it undone. */
  undo: PlannedWrite[];
}

type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

function checkEmbedded(rule: SubsetRule, source: Document): Checked<Document[]> {
  const entries: unknown = source[rule.arrayField];
  if (entries === undefined) return { ok: true, value: [] };
  if (!Array.isArray(entries)) {
    return { ok: false, reason: `${rule.arrayField} is ${describeValue(entries)}, expected an array` };
  }
  for (const [index, entry] of entries.entries()) {
    const where = () => `${rule.arrayField}[${index}]`;
    const problem = entryProblem(rule, entry, where);
    if (problem !== null) return { ok: false, reason: problem };
    if ((entry as Document)._id !== undefined) {
      return { ok: false, reason: `${where()}._id is present; an embedded entry must not carry an _id` };
    }
  }
  return { ok: true, value: entries as Document[] };
}

function checkFullSet(rule: SubsetRule, fullSet: Document[]): Checked<Map<string, Document>> {
  const byId = new Map<string, Document>();
  for (const doc of fullSet) {
    const problem = entryProblem(rule, doc, () => `${rule.fullSetCollection} ${printedKey(doc._id)}`);
    if (problem !== null) return { ok: false, reason: problem };
    const key = entryKey(rule, doc);
    if (!byId.has(key)) byId.set(key, embeddedForm(rule, doc));
  }
  return { ok: true, value: byId };
}

/** Embedded entries absent from the full set, once each, in embedded order. */
function entriesToCopy(
  rule: SubsetRule,
  embedded: Document[],
  fullSet: Map<string, Document>,
): Checked<Document[]> {
  const seen = new Map<string, Document>();
  for (const entry of embedded) {
    const key = entryKey(rule, entry);
    if (fullSet.has(key)) continue;
    const earlier = seen.get(key);
    if (earlier === undefined) seen.set(key, entry);
    else if (!sameBsonValue(earlier, entry)) {
      return {
        ok: false,
        reason: `${rule.arrayField} holds ${rule.idField} ${printedKey(entry[rule.idField])} twice with different contents`,
      };
    }
  }
  return { ok: true, value: [...seen.values()] };
}

/**
 * `unsettled`: the source's newest write is not `settleMs` old, so an application may still
 * insert what it pushed: nothing is copied now (the correction after the wait copies), and the
 * source is rewritten only if every entry still to copy stays embedded.
 */
export function planSubset(
  rule: SubsetRule,
  state: SubsetState,
  ledger?: CopyLedger,
  unsettled = false,
): Plan {
  const embedded = checkEmbedded(rule, state.source);
  if (!embedded.ok) return { outcome: "skip", reason: embedded.reason };
  const removal = removalOf(rule, state, ledger);
  const kept = removal ? withoutEntry(rule, embedded.value, removal.key) : embedded.value;
  const fullSet = checkFullSet(
    rule,
    state.fullSet.filter((doc) => doc !== removal?.copyBack),
  );
  if (!fullSet.ok) return { outcome: "skip", reason: fullSet.reason };
  const copies = entriesToCopy(rule, kept, fullSet.value);
  // Its full-set copy, unread, may be what tells the two apart: the correction after the wait reads it.
  if (!copies.ok && state.unreadEntries) return { outcome: "none" };
  if (!copies.ok) return { outcome: "skip", reason: copies.reason };
  const newest = [...fullSet.value.values(), ...copies.value]
    .sort(newestFirst(rule))
    .slice(0, rule.threshold);
  const unchanged = sameBsonValue(newest, embedded.value);
  // Copies wait for the source to settle; the rest needs them only where it would trim one.
  const copying = unsettled ? [] : copies.value;
  // With nothing to copy, the correction after the wait would plan this again, from the same state.
  const settling = unsettled && copies.value.length === 0 ? ({ leavesNothing: true } as const) : {};
  if (unsettled && !keepsAll(rule, newest, copies.value)) return { outcome: "none" };
  if (unchanged && copying.length === 0 && !removal?.copyBack) return { outcome: "none", ...settling };
  const writes: PlannedWrite[] = [
    ...copying.flatMap((entry) => copyToFullSet(rule, state.source._id, entry, ledger)),
    ...(removal?.undo ?? []),
  ];
  if (!unchanged) writes.push(setEmbedded(rule, state.source, newest));
  const deleted =
    removal !== undefined && (removal.copyBack !== undefined || kept.length < embedded.value.length);
  const kind = deleted ? "deleted" : kindOf(rule, copying.length, embedded.value.length);
  return { outcome: "writes", kind, writes, elementsMoved: copying.length, ...settling };
}

/** Whether every one of `entries` is among `newest` (by idField). */
function keepsAll(rule: SubsetRule, newest: Document[], entries: Document[]): boolean {
  const kept = new Set(newest.map((entry) => entryKey(rule, entry)));
  return entries.every((entry) => kept.has(entryKey(rule, entry)));
}

/** The entry a propagated delete removes, or undefined when an application has written it again. */
function removalOf(rule: SubsetRule, state: SubsetState, ledger?: CopyLedger): Removal | undefined {
  if (!state.deleted) return undefined;
  const { entryId, copies } = state.deleted;
  const key = bsonKey(entryId);
  const holder = state.fullSet.find((doc) => bsonKey(doc[rule.idField]) === key);
  if (!holder) return { key, copyBack: undefined, undo: [] };
  const copy = copies.find(({ copied }) => sameBsonValue(copied, holder._id));
  return ledger && copy
    ? { key, copyBack: holder, undo: undoCopyBack(rule, holder, ledger, copy) }
    : undefined;
}

function withoutEntry(rule: SubsetRule, embedded: Document[], key: string): Document[] {
  return embedded.filter((entry) => entryKey(rule, entry) !== key);
}

function kindOf(rule: SubsetRule, copied: number, embeddedCount: number): CorrectionKind {
  if (copied > 0) return "copied";
  return embeddedCount > rule.threshold ? "trimmed" : "repaired";
}

function copyToFullSet(
  rule: SubsetRule,
  sourceId: unknown,
  entry: Document,
  ledger?: CopyLedger,
): PlannedWrite[] {
  // The entry's fields in its order (a spread would put integer-like names first), then the
  // reference, as `{ ...entry, [referenceField]: sourceId }` would place it.
  const fields = [...fieldEntries(entry), [rule.referenceField, sourceId] as const];
  if (!ledger) {
    return [{ op: "insertOne", collection: rule.fullSetCollection, document: orderedDocument(fields) }];
  }
  const _id = ledger.newId();
  const record = { rule: rule.name, source: sourceId, entry: entry[rule.idField] };
  return [
    {
      op: "insertOne",
      collection: rule.fullSetCollection,
      document: orderedDocument([["_id", _id], ...fields]),
    },
    recordCopy(ledger, _id, record),
  ];
}

function undoCopyBack(
  rule: SubsetRule,
  copyBack: Document,
  ledger: CopyLedger,
  copy: LedgeredCopy,
): PlannedWrite[] {
  const filter = {
    _id: copyBack._id,
    [rule.referenceField]: copyBack[rule.referenceField],
    [rule.idField]: copyBack[rule.idField],
  };
  return [
    { op: "deleteOne", collection: rule.fullSetCollection, filter },
    forgetCopy(ledger.collection, copy),
  ];
}

function setEmbedded(rule: SubsetRule, source: Document, newest: Document[]): Write {
  const entries: unknown = source[rule.arrayField];
  const sizeGuard = Array.isArray(entries) ? { $size: entries.length } : { $exists: false };
  return {
    op: "updateOne",
    collection: rule.collection,
    filter: { _id: source._id, [rule.arrayField]: sizeGuard },
    update: { $set: { [rule.arrayField]: newest } },
  };
}
