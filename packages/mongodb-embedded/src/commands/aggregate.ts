// aggregate: a leading $changeStream goes to the change-stream module; otherwise the stages
// run through the query module's runPipeline over the operation's view, a leading $match and
// $lookup joins using indexes, and a final $out or $merge is carried out here as writes.
import type { Document } from "bson";
import { openChangeStream } from "../changestream/index.js";
import { runPipeline } from "../query/index.js";
import { aggregateContext, executeAggregateRead } from "./aggregate-read.js";
import { explainAggregate } from "./explain.js";
import { ServerError, ErrorCode } from "../errors.js";
import type { ServerState } from "../server-state.js";
import { documentKey } from "../storage/stored-collection.js";
import { ArrayCursor } from "./array-cursor.js";
import type { CommandHandler, CommandRequest } from "./command-context.js";
import {
  assertSimpleCollation,
  documentArray,
  optionalCount,
  optionalDocument,
  truthy,
} from "./command-args.js";
import { firstBatchReply } from "./cursor-replies.js";
import { DEFAULT_FIRST_BATCH_SIZE } from "./find.js";
import { writeMerge, writeOut } from "./aggregate-writes.js";
import { writeScope } from "./session-handling.js";
import { assertCollectionless, localSessionDocuments } from "./list-local-sessions.js";

export const aggregate: CommandHandler = async (request, server) => {
  const pipeline = documentArray(request.body, "pipeline");
  if (truthy(request.body.explain)) return explainAggregate(request, server, "queryPlanner");
  const cursorOptions = optionalDocument(request.body, "cursor");
  if (!cursorOptions) {
    throw new ServerError(
      ErrorCode.FailedToParse,
      "FailedToParse",
      "The 'cursor' option is required, except for aggregate with the explain argument",
    );
  }
  const batchSize = optionalCount(cursorOptions, "batchSize");
  const first = pipeline[0] as Document | undefined;
  if (first && "$changeStream" in first) {
    // The change-stream module filters events with binary string comparison only.
    assertSimpleCollation(request.body.collation, "aggregate.collation");
    return openChangeStreamCursor(request, server, pipeline, batchSize);
  }

  const last = pipeline[pipeline.length - 1] as Document | undefined;
  const writesOut = last && ("$out" in last || "$merge" in last);
  const stages = writesOut ? pipeline.slice(0, -1) : pipeline;
  const results = await runStages(request, server, stages);
  if (writesOut) {
    if ((request.body.readConcern as Document | undefined)?.level === "linearizable") {
      throw new ServerError(
        ErrorCode.InvalidOptions,
        "InvalidOptions",
        "readConcern level 'linearizable' is not allowed with $out or $merge",
      );
    }
    if (request.transaction) {
      throw new ServerError(
        263,
        "OperationNotSupportedInTransaction",
        "$out and $merge cannot be used in a transaction",
      );
    }
    const scope = writeScope(request, server);
    if ("$out" in last) writeOut(server, scope, request.db, last.$out, results);
    else await writeMerge(server, scope, request.db, last.$merge, results);
    return firstBatchReply(server, new ArrayCursor(namespaceOf(request), []), {
      documents: [],
      exhausted: true,
    });
  }
  const cursor = new ArrayCursor(namespaceOf(request), results);
  const batch =
    batchSize === 0
      ? { documents: [], exhausted: results.length === 0 }
      : cursor.takeBatch(batchSize ?? DEFAULT_FIRST_BATCH_SIZE);
  return firstBatchReply(server, cursor, batch);
};

async function runStages(
  request: CommandRequest,
  server: ServerState,
  stages: Document[],
): Promise<Document[]> {
  const context = aggregateContext(request, server);
  if (stages.some(listsSessions)) assertCollectionless(request);
  if (listsSessions(stages[0])) {
    const sessions = localSessionDocuments(server, (stages[0] as Document).$listLocalSessions);
    return runPipeline(sessions, stages.slice(1), context);
  }
  if (typeof request.body.aggregate !== "string") {
    // `aggregate: 1` runs collection-less stages ($documents); nothing else is supported.
    return runPipeline([], stages, context);
  }
  const read = await executeAggregateRead(request, server, stages);
  return runPipeline(read.docs, read.rest, context);
}

/** Stages are checked for shape later (runPipeline); this must not trip over a malformed one. */
function listsSessions(stage: unknown): boolean {
  return typeof stage === "object" && stage !== null && "$listLocalSessions" in stage;
}

function namespaceOf(request: CommandRequest): string {
  const name = request.body.aggregate;
  return typeof name === "string" ? `${request.db}.${name}` : `${request.db}.$cmd.aggregate`;
}

async function openChangeStreamCursor(
  request: CommandRequest,
  server: ServerState,
  pipeline: Document[],
  batchSize: number | undefined,
): Promise<Document> {
  const target = request.body.aggregate;
  const cursor = openChangeStream(
    {
      db: request.db,
      coll: typeof target === "string" ? target : undefined,
      allChangesForCluster: ((pipeline[0]!.$changeStream ?? {}) as Document).allChangesForCluster === true,
      spec: (pipeline[0]!.$changeStream ?? {}) as Document,
      pipeline: pipeline.slice(1),
    },
    {
      changeLog: server.changeLog,
      lookupDocument: (db, coll, key) => {
        const collection = server.catalog.collection(db, coll);
        return collection ? collection.read(documentKey(key._id)) : null;
      },
      currentClusterTime: () => server.clock.current(),
      collectionExists: (db, coll) => server.catalog.collection(db, coll) !== undefined,
    },
  );
  const batch = await cursor.nextBatch({
    batchSize: batchSize ?? DEFAULT_FIRST_BATCH_SIZE,
    maxAwaitTimeMS: 0,
    signals: [request.connection.signal],
  });
  // A change stream stays open even when its first batch is empty; only an invalidate ends it.
  return firstBatchReply(server, cursor, batch);
}
