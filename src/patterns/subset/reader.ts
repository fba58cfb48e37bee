// Reads products and the part of their full sets the subset planner needs: the full-set
// entries of what each embeds now, plus the `threshold` newest entries; for a delete being
// propagated, also the full-set document holding the deleted entry now, whether the copy
// ledger names it, and one more of the newest (to take the deleted entry's place). A batch
// of corrections reads all of theirs in the commands one would need; an unsettled one (which
// copies nothing) reads only the products and their newest, in one command.
import type { ClientSession, Db, Document } from "mongodb";
import { bsonKey, RAW, verbatim } from "../bson/bson-value.js";
import { readJoinedSources } from "../reads/joined-sources.js";
import type { ReadContext } from "../driver.js";
import { findCopies } from "./copy-ledger.js";
import { referringTo } from "../reads/reference-filter.js";
import type { SubsetRule } from "./rule.js";
import type { SubsetState } from "./planner.js";

function embeddedIds(rule: SubsetRule, source: Document): unknown[] {
  const entries: unknown = source[rule.arrayField];
  if (!Array.isArray(entries)) return [];
  return entries
    .map((entry: unknown) =>
      entry && typeof entry === "object" ? (entry as Document)[rule.idField] : undefined,
    )
    .filter((id) => id !== undefined);
}

/**
 * Each full-set document once. A batch reads each one once (the holders' query asks only for
 * pairs that the newest did not hold, and the full set is unique by pair), so the same document
 * is the same object wherever a state lists it.
 */
function distinct(documents: Document[]): Document[] {
  return [...new Set(documents)];
}

/** What one correction reads: a source, and for a propagated delete the entry it deleted. */
export interface SubsetRequest {
  sourceId: unknown;
  /** The idField value of the full-set document whose delete is being propagated. */
  entryId?: unknown;
  /**
   * For a correction before the source's writes settle (CorrectionTarget.unsettled), which
   * copies nothing: its embedded entries outside the newest are not looked for in the full
   * set (SubsetState.unreadEntries).
   */
  unsettled?: boolean;
}

// Where the $lookup puts a source's newest full-set documents; taken off before planning.
const NEWEST = "__patternSidecarNewest";

function newestFirst(rule: SubsetRule): Document {
  return { [rule.sortField]: -1, [rule.idField]: -1 };
}

/**
 * The sources by `_id`, each with its `newestCount` newest full-set documents joined by a
 * $lookup that the `{ reference, sort, id }` index answers (as many keys per source as it
 * takes): one command for a batch. In the order of `sourceIds`; null for a missing source.
 */
async function readSourcesWithNewest(
  db: Db,
  rule: SubsetRule,
  sourceIds: readonly unknown[],
  newestCount: number,
  reads: ReadContext,
): Promise<({ source: Document; newest: Document[] } | null)[]> {
  const { session } = reads;
  const newest = {
    from: rule.fullSetCollection,
    localField: "_id",
    foreignField: rule.referenceField,
    pipeline: [{ $sort: newestFirst(rule) }, { $limit: newestCount }],
    as: NEWEST,
  };
  const found = await readJoinedSources(db, rule.collection, sourceIds, newest, reads);
  return Promise.all(
    found.map(async (joined, i) => {
      if (!joined) return null;
      const id = sourceIds[i];
      const { [NEWEST]: joinedNewest, ...source } = joined;
      // The join's equality with a null _id also takes documents that lack the reference.
      if (id !== null) return { source, newest: joinedNewest as Document[] };
      const newestOfNull = await db
        .collection(rule.fullSetCollection)
        .find(referringTo(rule.referenceField, null), { session, ...RAW })
        .sort(newestFirst(rule))
        .limit(newestCount)
        .map(verbatim)
        .toArray();
      return { source, newest: newestOfNull };
    }),
  );
}

/** Values by a source's key and an entry's key (bsonKey), each printed once by the caller. */
class ByPair<T> {
  private readonly bySource = new Map<string, Map<string, T>>();

  get(sourceKey: string, entryKey: string): T | undefined {
    return this.bySource.get(sourceKey)?.get(entryKey);
  }

  set(sourceKey: string, entryKey: string, value: T): void {
    const entries = this.bySource.get(sourceKey);
    if (entries) entries.set(entryKey, value);
    else this.bySource.set(sourceKey, new Map([[entryKey, value]]));
  }
}

/** An entry of a source looked for in the full set, with both keys. */
interface WantedPair {
  source: unknown;
  entry: unknown;
  sourceKey: string;
  entryKey: string;
}

/**
 * Each source with the entries wanted of it, a branch of one `$or`: a query's index ranges are
 * then the pairs wanted, where one `$in` of sources with one `$in` of entries walked every
 * source with every entry.
 */
function entriesBySource(rule: SubsetRule, wanted: readonly WantedPair[]): Document[] {
  const bySource = new Map<string, { source: unknown; entries: unknown[] }>();
  for (const { source, entry, sourceKey } of wanted) {
    const group = bySource.get(sourceKey);
    if (group) group.entries.push(entry);
    else bySource.set(sourceKey, { source, entries: [entry] });
  }
  return [...bySource.values()].map(({ source, entries }) => ({
    [rule.referenceField]: { $in: [source] },
    [rule.idField]: { $in: entries },
  }));
}

/**
 * Adds to `held` the full-set documents holding the `wanted` entries of their sources (the
 * embedded ones, a deleted one), read in one query whose `$or` branches the unique
 * `{ reference, id }` index answers, each its own index scan
 * (mongodb.com/docs/manual/reference/operator/query/or, "$or Clauses and Indexes").
 */
async function readHolders(
  db: Db,
  rule: SubsetRule,
  wanted: readonly WantedPair[],
  held: ByPair<Document>,
  session?: ClientSession,
): Promise<void> {
  if (wanted.length === 0) return;
  const branches = entriesBySource(rule, wanted);
  const found = await db
    .collection(rule.fullSetCollection)
    .find(branches.length === 1 ? branches[0]! : { $or: branches }, { session, ...RAW })
    .map(verbatim)
    .toArray();
  const asked = new ByPair<true>();
  for (const { sourceKey, entryKey } of wanted) asked.set(sourceKey, entryKey, true);
  for (const doc of found) {
    // A null reference's `$in` also takes a missing one: kept by pair.
    if (!(rule.referenceField in doc)) continue;
    const [sourceKey, entryKey] = [bsonKey(doc[rule.referenceField]), bsonKey(doc[rule.idField])];
    if (asked.get(sourceKey, entryKey)) held.set(sourceKey, entryKey, doc);
  }
}

/**
 * The states several corrections plan from, read together (inside their transaction when
 * given a session): each source with its `threshold` newest full-set documents (one more
 * when a delete is propagated, to take the deleted entry's place), the full-set documents of
 * what it embeds, and for a propagated delete the document holding the entry now and whether
 * the copy ledger names it. One command for a batch that embeds only entries among the
 * newest; one more for the others, and one for the ledger where a deleted entry is held
 * again. In the order of `requests`; null for a missing source.
 */
export async function readSubsetStates(
  db: Db,
  rule: SubsetRule,
  requests: readonly SubsetRequest[],
  context: ReadContext & { stateCollection: string },
): Promise<(SubsetState | null)[]> {
  const { session, stateCollection } = context;
  const deleting = requests.some((request) => request.entryId !== undefined);
  const sources = await readSourcesWithNewest(
    db,
    rule,
    requests.map((request) => request.sourceId),
    rule.threshold + (deleting ? 1 : 0),
    context,
  );
  // Each key printed once: a batch of trims looks every embedded entry up twice.
  const sourceKeys = sources.map((read) => (read ? bsonKey(read.source._id) : ""));
  const embedded = sources.map((read) =>
    (read ? embeddedIds(rule, read.source) : []).map((id) => ({ id, key: bsonKey(id) })),
  );
  const deletedKeys = requests.map(({ entryId }) => (entryId === undefined ? undefined : bsonKey(entryId)));
  // The full set is unique by pair: an entry among a source's newest is held there, and
  // only the others (an older entry still embedded, a deleted one) are looked for.
  const held = new ByPair<Document>();
  sources.forEach((read, i) => {
    for (const doc of read?.newest ?? []) held.set(sourceKeys[i]!, bsonKey(doc[rule.idField]), doc);
  });
  const wanted = requests.flatMap(({ entryId, unsettled }, i): WantedPair[] => {
    const read = sources[i];
    if (!read) return [];
    const entries = unsettled ? [] : [...embedded[i]!];
    if (entryId !== undefined) entries.push({ id: entryId, key: deletedKeys[i]! });
    const sourceKey = sourceKeys[i]!;
    return entries.flatMap(({ id, key }) =>
      held.get(sourceKey, key) ? [] : [{ source: read.source._id, entry: id, sourceKey, entryKey: key }],
    );
  });
  await readHolders(db, rule, wanted, held, session);
  const holderOf = (i: number) => {
    const key = deletedKeys[i];
    return key === undefined ? undefined : held.get(sourceKeys[i]!, key);
  };
  const deletedHolders = requests.flatMap((_, i) => (sources[i] ? [holderOf(i)?._id] : []));
  const ledgered = await findCopies(
    db,
    stateCollection,
    deletedHolders.filter((id) => id !== undefined),
    rule.name,
    session,
  );
  const copyOf = new Map(ledgered.map((copy) => [bsonKey(copy.copied), copy]));
  return requests.map(({ entryId, unsettled }, i) => {
    const read = sources[i];
    if (!read) return null;
    const embeddedHeld = embedded[i]!.flatMap(({ key }) => {
      const doc = held.get(sourceKeys[i]!, key);
      return doc ? [doc] : [];
    });
    const state: SubsetState = { source: read.source, fullSet: distinct([...embeddedHeld, ...read.newest]) };
    if (unsettled) state.unreadEntries = true;
    if (entryId === undefined) return state;
    const holder = holderOf(i);
    if (holder) state.fullSet = distinct([...state.fullSet, holder]);
    const copy = holder && copyOf.get(bsonKey(holder._id));
    state.deleted = { entryId, copies: copy ? [copy] : [] };
    return state;
  });
}
