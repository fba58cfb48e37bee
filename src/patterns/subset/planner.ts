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
// - Guards: the source by `_id` + exact array size (or the array's absence); copies by the
//   unique `(referenceField, idField)` index of the full set.
import type { Document } from "mongodb";
import type { SubsetRule } from "./rule.js";
import { bsonKey, describeValue, sameBsonValue } from "../common/bson-value.js";
import { embeddedForm, entryKey, entryProblem, newestFirst } from "./entries.js";
import type { CorrectionKind, Plan, Write } from "../plan.js";

export interface SubsetState {
  source: Document;
  /**
   * Full-set documents of this source: every one whose idField is embedded, and at least the
   * `threshold` newest in the planner's ranking, ties included: `sort({ [sortField]: -1,
   * [idField]: -1 })`. Ties broken any other way (by `_id`, say) can hide a review that
   * belongs among the newest.
   */
  fullSet: Document[];
}

type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

function checkEmbedded(rule: SubsetRule, source: Document): Checked<Document[]> {
  const entries: unknown = source[rule.arrayField];
  if (entries === undefined) return { ok: true, value: [] };
  if (!Array.isArray(entries)) {
    return { ok: false, reason: `${rule.arrayField} is ${describeValue(entries)}, expected an array` };
  }
  for (const [index, entry] of entries.entries()) {
    const where = `${rule.arrayField}[${index}]`;
    const problem = entryProblem(rule, entry, where);
    if (problem !== null) return { ok: false, reason: problem };
    if ((entry as Document)._id !== undefined) {
      return { ok: false, reason: `${where}._id is present; an embedded entry must not carry an _id` };
    }
  }
  return { ok: true, value: entries as Document[] };
}

function checkFullSet(rule: SubsetRule, fullSet: Document[]): Checked<Map<string, Document>> {
  const byId = new Map<string, Document>();
  for (const doc of fullSet) {
    const problem = entryProblem(rule, doc, `${rule.fullSetCollection} ${JSON.stringify(doc._id)}`);
    if (problem !== null) return { ok: false, reason: problem };
    const form = embeddedForm(rule, doc);
    if (!byId.has(entryKey(rule, form))) byId.set(entryKey(rule, form), form);
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
        reason: `${rule.arrayField} holds ${rule.idField} ${bsonKey(entry[rule.idField])} twice with different contents`,
      };
    }
  }
  return { ok: true, value: [...seen.values()] };
}

export function planSubset(rule: SubsetRule, state: SubsetState): Plan {
  const embedded = checkEmbedded(rule, state.source);
  if (!embedded.ok) return { outcome: "skip", reason: embedded.reason };
  const fullSet = checkFullSet(rule, state.fullSet);
  if (!fullSet.ok) return { outcome: "skip", reason: fullSet.reason };
  const copies = entriesToCopy(rule, embedded.value, fullSet.value);
  if (!copies.ok) return { outcome: "skip", reason: copies.reason };
  const newest = [...fullSet.value.values(), ...copies.value]
    .sort(newestFirst(rule))
    .slice(0, rule.threshold);
  const unchanged = sameBsonValue(newest, embedded.value);
  if (unchanged && copies.value.length === 0) return { outcome: "none" };
  const writes: Write[] = copies.value.map((entry) => copyToFullSet(rule, state.source._id, entry));
  if (!unchanged) writes.push(setEmbedded(rule, state.source, newest));
  const kind = kindOf(rule, copies.value.length, embedded.value.length);
  return { outcome: "writes", kind, writes, elementsMoved: copies.value.length };
}

function kindOf(rule: SubsetRule, copied: number, embeddedCount: number): CorrectionKind {
  if (copied > 0) return "copied";
  return embeddedCount > rule.threshold ? "trimmed" : "repaired";
}

function copyToFullSet(rule: SubsetRule, sourceId: unknown, entry: Document): Write {
  return {
    op: "insertOne",
    collection: rule.fullSetCollection,
    document: { ...entry, [rule.referenceField]: sourceId },
  };
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
