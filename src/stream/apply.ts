// Executes a plan's writes inside the correction's transaction: one ordered bulk write per
// collection, so that a split into thousands of buckets is a few commands, well within the
// transaction's lifetime, rather than one round trip per bucket. A guarded update or delete
// that matches nothing means the document changed between the read and the write; the whole
// transaction is redone from a fresh read rather than committing a half-applied plan.
import type { AnyBulkWriteOperation, ClientSession, Db, Document } from "mongodb";
import { StalePlanError } from "../errors.js";
import type { Write } from "../patterns/plan.js";

type GuardedWrite = Exclude<Write, { op: "insertOne" }>;

export async function applyWrites(db: Db, writes: readonly Write[], session: ClientSession): Promise<void> {
  for (const [collection, group] of byCollection(writes)) await applyGroup(db, collection, group, session);
}

/** The writes of each collection, in plan order (a plan's collections are independent). */
function byCollection(writes: readonly Write[]): Map<string, Write[]> {
  const groups = new Map<string, Write[]>();
  for (const write of writes) groups.set(write.collection, [...(groups.get(write.collection) ?? []), write]);
  return groups;
}

async function applyGroup(
  db: Db,
  collection: string,
  writes: Write[],
  session: ClientSession,
): Promise<void> {
  const result = await db
    .collection(collection)
    .bulkWrite(writes.map(toOperation), { ordered: true, session });
  const updates = writes.filter((write) => write.op === "updateOne");
  const deletes = writes.filter((write) => write.op === "deleteOne");
  // Every update and delete is guarded to match exactly its one document: fewer, a stale plan.
  // An upsert matches or inserts, so it counts either way.
  if (result.matchedCount + result.upsertedCount < updates.length || result.deletedCount < deletes.length) {
    throw stale(collection, [...updates, ...deletes]);
  }
}

function toOperation(write: Write): AnyBulkWriteOperation<Document> {
  switch (write.op) {
    case "insertOne":
      return { insertOne: { document: { ...write.document } } };
    case "updateOne":
      return { updateOne: { filter: write.filter, update: write.update, upsert: write.upsert ?? false } };
    case "deleteOne":
      return { deleteOne: { filter: write.filter } };
  }
}

function stale(collection: string, guarded: GuardedWrite[]): StalePlanError {
  return new StalePlanError(`a guarded write on ${collection} matched no document`, {
    collection,
    filters: guarded.map((write) => write.filter),
  });
}
