// Executes a plan's writes inside the correction's transaction: per collection, one ordered
// write command for each run of inserts, updates or deletes in plan order, so that a split
// into thousands of buckets is a few commands, well within the transaction's lifetime,
// rather than one round trip per bucket. These are the commands the driver's bulk API would
// send, without its bookkeeping per operation. A document to insert without an `_id` gets
// one from the server, as from mongod; a retried transaction plans its inserts anew anyway.
// A guarded update or delete that matches nothing means the document changed between the
// read and the write; the whole transaction is redone from a fresh read rather than
// committing a half-applied plan.
import { BSON, type ClientSession, type Db, type Document } from "mongodb";
import { StalePlanError } from "../../errors.js";
import { refusedWrite } from "./refusal.js";
import type { Absent, Write } from "../../patterns/plan.js";

/** A plan's `absent` documents, looked for in the transaction: one found makes the plan stale. */
export async function checkAbsent(db: Db, absent: readonly Absent[], session: ClientSession): Promise<void> {
  for (const expected of absent) {
    const { collection, filter } = expected;
    const found = await db.collection(collection).findOne(filter, { session, projection: { _id: 1 } });
    if (found) throw foundAbsent(expected);
  }
}

/** The error of a document the plan assumed absent that exists. */
export function foundAbsent({ collection, filter }: Absent): StalePlanError {
  return new StalePlanError(`a document the plan assumed absent exists in ${collection}`, {
    collection,
    filter,
  });
}

export async function applyWrites(db: Db, writes: readonly Write[], session: ClientSession): Promise<void> {
  for (const [collection, group] of byCollection(writes))
    for (const command of writeCommands(collection, group)) await send(db, command, session);
}

/** The writes of each collection, in plan order (a plan's collections are independent). */
function byCollection(writes: readonly Write[]): Map<string, Write[]> {
  const groups = new Map<string, Write[]>();
  for (const write of writes) {
    const group = groups.get(write.collection);
    if (group) group.push(write);
    else groups.set(write.collection, [write]);
  }
  return groups;
}

/** One write command: consecutive writes of one kind, in plan order. */
interface WriteCommand {
  collection: string;
  op: Write["op"];
  statements: Document[];
  /** The writes the statements are of, in order (a refused one is named in its error). */
  writes: Write[];
  /** The filters of its updates and deletes, each guarded to match one document. */
  filters: Document[];
}

// mongod takes commands of up to 16 MiB and 100,000 writes (maxBsonObjectSize,
// maxWriteBatchSize); a command stops well short of the size, so that its own fields and a
// write larger than the rest still fit.
const COMMAND_BYTES_MAX = 8 * 1024 * 1024;
const WRITES_PER_COMMAND_MAX = 100_000;

/** The writes of one collection as commands: a new one at each change of kind, or when full. */
function writeCommands(collection: string, writes: Write[]): WriteCommand[] {
  const commands: WriteCommand[] = [];
  let bytes = 0;
  for (const write of writes) {
    const statement = statementOf(write);
    const size = BSON.calculateObjectSize(statement);
    let last = commands.at(-1);
    const fits =
      last?.op === write.op &&
      last.statements.length < WRITES_PER_COMMAND_MAX &&
      bytes + size <= COMMAND_BYTES_MAX;
    if (!last || !fits) {
      last = { collection, op: write.op, statements: [], writes: [], filters: [] };
      commands.push(last);
      bytes = 0;
    }
    last.statements.push(statement);
    last.writes.push(write);
    if (write.op !== "insertOne") last.filters.push(write.filter);
    bytes += size;
  }
  return commands;
}

const COMMAND_FIELDS = {
  insertOne: ["insert", "documents"],
  updateOne: ["update", "updates"],
  deleteOne: ["delete", "deletes"],
} as const;

async function send(db: Db, command: WriteCommand, session: ClientSession): Promise<void> {
  const [name, list] = COMMAND_FIELDS[command.op];
  const reply = await db.command(
    { [name]: command.collection, [list]: command.statements, ordered: true },
    { session },
  );
  const writeErrors = reply.writeErrors as Document[] | undefined;
  // As the driver's bulk API reports it: the first refused write, whose code says why.
  const refused = writeErrors?.[0];
  if (refused) throw refusedWrite(refused, command.writes[refused.index as number]);
  // Every update and delete is guarded to match exactly its one document: fewer, a stale plan.
  // An update's `n` counts the documents it matched or upserted; a delete's, those it removed.
  if ((reply.n as number) < command.filters.length) throw stale(command);
}

/** A write as its command lists it: an insert's document, an update's or a delete's statement. */
function statementOf(write: Write): Document {
  switch (write.op) {
    case "insertOne":
      return write.document;
    case "updateOne":
      return { q: write.filter, u: write.update, upsert: write.upsert ?? false };
    case "deleteOne":
      return { q: write.filter, limit: 1 };
  }
}

function stale(command: WriteCommand): StalePlanError {
  return new StalePlanError(`a guarded write on ${command.collection} matched no document`, {
    collection: command.collection,
    filters: command.filters,
  });
}
