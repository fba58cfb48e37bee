// Executes a plan's writes inside the correction's transaction. A write that matches nothing
// means the document changed between the read and the write; the whole transaction is redone
// from a fresh read rather than committing a half-applied plan.
import type { ClientSession, Db } from "mongodb";
import { StalePlanError } from "../errors.js";
import type { Write } from "../patterns/plan.js";

export async function applyWrites(db: Db, writes: readonly Write[], session: ClientSession): Promise<void> {
  for (const write of writes) await applyWrite(db, write, session);
}

async function applyWrite(db: Db, write: Write, session: ClientSession): Promise<void> {
  const collection = db.collection(write.collection);
  switch (write.op) {
    case "insertOne":
      await collection.insertOne({ ...write.document }, { session });
      return;
    case "updateOne": {
      const result = await collection.updateOne(write.filter, write.update, { session });
      if (result.matchedCount === 0) throw stale(write);
      return;
    }
    case "deleteOne": {
      const result = await collection.deleteOne(write.filter, { session });
      if (result.deletedCount === 0) throw stale(write);
      return;
    }
  }
}

function stale(write: Exclude<Write, { op: "insertOne" }>): StalePlanError {
  return new StalePlanError(`${write.op} on ${write.collection} matched no document`, {
    collection: write.collection,
    filter: write.filter,
  });
}
