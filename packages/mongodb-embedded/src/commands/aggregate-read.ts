// The collection read a pipeline starts with: its leading $match, $sort and $limit, which an
// index can answer (as mongod pushes them down to its query layer), and the stages after them.
import type { Document } from "bson";
import { collatorFor } from "../query/index.js";
import type { ServerState } from "../server-state.js";
import type { QueryResult } from "../storage/read-view.js";
import type { CommandRequest } from "./command-context.js";
import { documentArray, letVariables } from "./command-args.js";

export function executeAggregateRead(
  request: CommandRequest,
  server: ServerState,
  stages: Document[] = documentArray(request.body, "pipeline"),
): {
  read: { filter: Document; sort?: Document; skip: number; limit: number };
  query?: QueryResult;
  rest: Document[];
} {
  let next = 0;
  const stageOf = (name: string) => {
    const value = (stages[next] as Document | undefined)?.[name] as unknown;
    if (value === undefined || (typeof value !== "object" && name !== "$limit")) return undefined;
    next += 1;
    return value;
  };
  const filter = (stageOf("$match") as Document | undefined) ?? {};
  const sort = stageOf("$sort") as Document | undefined;
  const limitValue = stageOf("$limit");
  const limit =
    typeof limitValue === "number" ? limitValue : limitValue === undefined ? 0 : Number(String(limitValue));
  const name = request.body.aggregate;
  const collection = typeof name === "string" ? server.catalog.collection(request.db, name) : undefined;
  const strings = collatorFor(request.body.collation, "aggregate.collation");
  const query = collection
    ? server
        .scope(request.transaction)
        .view.query(collection, { filter, sort, limit, strings, variables: letVariables(request) })
    : undefined;
  return { read: { filter, sort, skip: 0, limit }, query, rest: stages.slice(next) };
}
