// On MongoDB 8.0 and later, a correction's writes leave in one bulkWrite command, on whatever
// collections they touch, with the lease's fencing write first: a correction of a source and
// its overflow chunk is then read, write, commit (three commands) rather than fence, read, one
// write per collection, commit. The fence checks the lease in the same snapshot either way.
// Errors keep their meaning: a refused write is the server's error for that write (classify
// tells a bad document), a fence that matched nothing is a lost lease, a guarded write that
// matched nothing is a stale plan, and a write conflict keeps its TransientTransactionError.
import {
  MongoClientBulkWriteError,
  MongoServerError,
  type AnyClientBulkWriteModel,
  type ClientBulkWriteResult,
  type ClientSession,
  type Db,
  type Document,
  type MongoClient,
} from "mongodb";
import { refusedWrite } from "./refusal.js";
import { StalePlanError } from "../../errors.js";
import { BULK_WRITE_REFUSED_CODES, hasCode } from "../../mongodb-codes.js";
import type { Absent, Write } from "../../patterns/plan.js";
import { foundAbsent } from "./apply.js";
import type { Fence } from "../lease/fencing.js";

const WIRE_VERSION_8_0 = 25;

const bulkWriteSupport = new WeakMap<MongoClient, Promise<boolean>>();
/** What a client's server that refused bulkWrite (stopUsingBulkWrite) is known by. */
const REFUSED: Promise<boolean> = Promise.resolve(false);

/**
 * Whether the deployment takes the bulkWrite command (wire version 25, MongoDB 8.0), asked once
 * per client, until a refusal says otherwise (stopUsingBulkWrite). A server upgraded while the
 * sidecar runs keeps being written to the older way until the sidecar restarts; both ways are
 * exact.
 */
export function supportsBulkWrite(client: MongoClient): Promise<boolean> {
  let known = bulkWriteSupport.get(client);
  if (!known) {
    known = client
      .db("admin")
      .command({ hello: 1 })
      .then((hello) => Number(hello.maxWireVersion) >= WIRE_VERSION_8_0);
    // A failed hello is asked again by the next correction, not remembered.
    known.catch(() => bulkWriteSupport.delete(client));
    bulkWriteSupport.set(client, known);
  }
  return known;
}

/** Whether the server refused the bulkWrite command itself, not one of its writes. */
export function isBulkWriteRefused(error: unknown): boolean {
  return error instanceof MongoServerError && hasCode(error, BULK_WRITE_REFUSED_CODES);
}

/** This client's corrections write without bulkWrite from now on; true the first time only. */
export function stopUsingBulkWrite(client: MongoClient): boolean {
  const first = bulkWriteSupport.get(client) !== REFUSED;
  bulkWriteSupport.set(client, REFUSED);
  return first;
}

export interface FencedWrites {
  /** The leases' fencing writes: each must match its document, or its takenOver() is thrown. */
  fences: readonly Fence[];
  /** Documents the plans assume do not exist (Plan's `absent`), looked for before the writes. */
  absent?: readonly Absent[];
  writes: readonly Write[];
}

/** The fence, the absent documents' probes and the writes, in one ordered bulkWrite (the driver splits one too large). */
export async function bulkWriteFenced(
  client: MongoClient,
  db: Db,
  { fences, absent = [], writes }: FencedWrites,
  session: ClientSession,
): Promise<void> {
  const sent = [...fences.map((fence) => fence.write), ...absent.map(probeOf), ...writes];
  let result: ClientBulkWriteResult;
  try {
    const models = sent.map((write) => modelOf(db, write));
    result = await client.bulkWrite(models, { session, ordered: true, verboseResults: true });
  } catch (error) {
    throw unwrapped(error, sent);
  }
  const lost = fences.find((_, i) => !matchedItsDocument(result, i));
  if (lost) throw lost.takenOver();
  const found = absent.find((_, i) => matchedItsDocument(result, i + fences.length));
  if (found) throw foundAbsent(found);
  const firstWrite = fences.length + absent.length;
  const stale = writes.findIndex(
    (write, i) => write.op !== "insertOne" && !matchedItsDocument(result, i + firstWrite),
  );
  if (stale >= 0) {
    const { collection, filter } = writes[stale] as Exclude<Write, { op: "insertOne" }>;
    throw new StalePlanError(`a guarded write on ${collection} matched no document`, { collection, filter });
  }
}

/**
 * An update that matches what `absent` says does not exist and changes nothing there
 * (`$setOnInsert` without an upsert): bulkWrite has no read, but its count of matched
 * documents answers the question in the transaction's snapshot, in the same command.
 */
function probeOf({ collection, filter }: Absent): Write {
  return { op: "updateOne", collection, filter, update: { $setOnInsert: { [PROBE_FIELD]: true } } };
}

const PROBE_FIELD = "__patternSidecarProbe";

function modelOf(db: Db, write: Write): AnyClientBulkWriteModel<Document> {
  const namespace = `${db.databaseName}.${write.collection}` as const;
  switch (write.op) {
    case "insertOne":
      return { namespace, name: "insertOne", document: write.document };
    case "updateOne":
      return {
        namespace,
        name: "updateOne",
        filter: write.filter,
        update: write.update,
        upsert: write.upsert,
      };
    case "deleteOne":
      return { namespace, name: "deleteOne", filter: write.filter };
  }
}

/** Every update and delete is guarded to match exactly its one document (an upsert counts). */
function matchedItsDocument(result: ClientBulkWriteResult, index: number): boolean {
  const update = result.updateResults?.get(index);
  if (update) return update.matchedCount > 0 || update.didUpsert;
  return (result.deleteResults?.get(index)?.deletedCount ?? 0) > 0;
}

/**
 * The driver wraps what the server said in a MongoClientBulkWriteError: a failed command (a
 * write conflict, with its labels) as its cause, a refused write in its writeErrors.
 */
function unwrapped(error: unknown, sent: readonly Write[]): unknown {
  if (!(error instanceof MongoClientBulkWriteError)) return error;
  if (error.cause instanceof MongoServerError) return error.cause;
  const [first] = error.writeErrors.entries();
  if (!first) return error;
  const [index, { message, code }] = first;
  return refusedWrite({ message, errmsg: message, code }, sent[index]);
}
