// Read-only views (create with viewOn + pipeline), read as mongod reads them (its
// resolved_view.cpp): a find, count, distinct or aggregate on a view runs as an aggregate on
// the view's source with the view's pipeline first, through views over views. Writes and index
// builds on a view fail with CommandNotSupportedOnView (catalog.ts).
import type { Document } from "bson";
import { ServerError, ErrorCode } from "../errors.js";
import type { ServerState } from "../server-state.js";
import type { StoredCollection } from "../storage/stored-collection.js";
import { aggregate } from "./aggregate.js";
import type { CommandHandler, CommandRequest } from "./command-context.js";
import { documentArray, optionalDocument } from "./command-args.js";

/** The fields of a read command that go on to the aggregate it becomes. */
const CARRIED_FIELDS = [
  "lsid",
  "txnNumber",
  "autocommit",
  "startTransaction",
  "readConcern",
  "$readPreference",
  "collation",
  "let",
  "maxTimeMS",
  "comment",
];

/** The view options of a create: `viewOn`, a collection name, and `pipeline`, an array of stages. */
export function viewOptions(body: Document): Document | undefined {
  if (body.viewOn === undefined) {
    if (body.pipeline !== undefined)
      throw new ServerError(
        ErrorCode.BadValue,
        "BadValue",
        "'pipeline' requires 'viewOn' to also be specified",
      );
    return undefined;
  }
  if (typeof body.viewOn !== "string" || body.viewOn === "")
    throw new ServerError(ErrorCode.TypeMismatch, "TypeMismatch", "'viewOn' must be a non-empty string");
  return {
    viewOn: body.viewOn,
    pipeline: body.pipeline === undefined ? [] : documentArray(body, "pipeline"),
  };
}

/** `handler` for collections; on a view, the aggregate `expand` turns the command into. */
export function readingViews(
  handler: CommandHandler,
  expand: (body: Document) => { stages: Document[]; reply?: (aggregateReply: Document) => Document },
): CommandHandler {
  return (request, server) => {
    const view = targetView(request, server);
    if (!view) return handler(request, server);
    const { stages, reply } = expand(request.body);
    const aggregated = runAggregateOnView(request, server, view.options, stages);
    return reply ? aggregated.then(reply) : aggregated;
  };
}

/** The view the command names; none for a collection, or a name that is not one (`aggregate: 1`). */
function targetView(request: CommandRequest, server: ServerState): StoredCollection | undefined {
  const name: unknown = request.body[request.name];
  const view = typeof name === "string" ? server.catalog.collection(request.db, name) : undefined;
  return view?.isView && server.catalog.isVisible(view, request.transaction) ? view : undefined;
}

async function runAggregateOnView(
  request: CommandRequest,
  server: ServerState,
  view: Document,
  stages: Document[],
): Promise<Document> {
  const body: Document = {
    aggregate: view.viewOn as string,
    pipeline: [...(view.pipeline as Document[]), ...stages],
    cursor: optionalDocument(request.body, "cursor") ?? cursorOf(request.body),
  };
  for (const field of CARRIED_FIELDS)
    if (request.body[field] !== undefined) body[field] = request.body[field];
  // Through aggregateOnViews, so that a view over a view expands in turn.
  return aggregateOnViews({ ...request, name: "aggregate", body }, server);
}

function cursorOf(body: Document): Document {
  return body.batchSize === undefined ? {} : { batchSize: body.batchSize };
}

/** find as mongod expands it: its filter, sort, skip, limit and projection as stages. */
export function findStages(body: Document): { stages: Document[] } {
  const stages: Document[] = [];
  const filter = optionalDocument(body, "filter");
  if (filter && Object.keys(filter).length > 0) stages.push({ $match: filter });
  const sort = optionalDocument(body, "sort");
  if (sort && Object.keys(sort).length > 0) stages.push({ $sort: sort });
  if (body.skip !== undefined) stages.push({ $skip: body.skip });
  if (body.limit !== undefined && Number(body.limit) !== 0)
    stages.push({ $limit: Math.abs(Number(body.limit)) });
  const projection = optionalDocument(body, "projection");
  if (projection && Object.keys(projection).length > 0) stages.push({ $project: projection });
  return { stages };
}

/** count as mongod expands it, its `n` read back from the one document `$count` returns. */
export function countStages(body: Document): { stages: Document[]; reply: (reply: Document) => Document } {
  const stages: Document[] = [{ $match: optionalDocument(body, "query") ?? {} }];
  if (body.skip !== undefined) stages.push({ $skip: body.skip });
  if (body.limit !== undefined && Number(body.limit) !== 0)
    stages.push({ $limit: Math.abs(Number(body.limit)) });
  stages.push({ $count: "n" });
  return {
    stages,
    reply: (aggregateReply) => {
      const [counted] = ((aggregateReply.cursor as Document | undefined)?.firstBatch ?? []) as Document[];
      return { n: counted?.n ?? 0, ok: 1 };
    },
  };
}

/** aggregate, which on a view runs its own pipeline after the view's. */
export const aggregateOnViews: CommandHandler = readingViews(aggregate, (body) => ({
  stages: documentArray(body, "pipeline"),
}));

/** distinct as mongod expands it: each value of `key`, array elements one by one, once. */
export function distinctStages(body: Document): { stages: Document[]; reply: (reply: Document) => Document } {
  const path = `$${String(body.key)}`;
  return {
    stages: [
      { $match: optionalDocument(body, "query") ?? {} },
      { $unwind: { path, preserveNullAndEmptyArrays: true } },
      { $group: { _id: null, values: { $addToSet: path } } },
    ],
    reply: (aggregateReply) => {
      const [grouped] = ((aggregateReply.cursor as Document | undefined)?.firstBatch ?? []) as Document[];
      return { values: (grouped?.values as unknown[] | undefined) ?? [], ok: 1 };
    },
  };
}
