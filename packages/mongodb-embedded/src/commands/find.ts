// find, count and distinct: reads through the operation's view (snapshot in a transaction),
// using the _id or a secondary index for equality filters instead of a scan. A collation
// changes how their filters, sorts and distinct values compare strings.
import { readViewFor } from "./read-view.js";
import type { Document } from "bson";
import {
  collatorFor,
  compareValues,
  projectDocument,
  sortDocuments,
  valuesEqual,
  type StringComparator,
} from "../query/index.js";
import { ServerError, ErrorCode } from "../errors.js";
import { ArrayCursor } from "./array-cursor.js";
import type { CommandHandler, CommandRequest } from "./command-context.js";
import type { ServerState } from "../server-state.js";
import type { QueryResult } from "../storage/read-view.js";
import type { StoredCollection } from "../storage/stored-collection.js";
import { letVariables, optionalCount, optionalDocument, targetCollection, truthy } from "./command-args.js";
import { firstBatchReply } from "./cursor-replies.js";

/** mongod's default first batch: 101 documents. */
export const DEFAULT_FIRST_BATCH_SIZE = 101;

/** What a find did, for its reply and for explain. */
export interface FindExecution {
  docs: Document[];
  query: QueryResult | undefined;
  filter: Document;
  sort: Document | undefined;
  skip: number;
  limit: number;
  singleBatch: boolean;
  projection: Document | undefined;
}

export async function executeFind(request: CommandRequest, server: ServerState): Promise<FindExecution> {
  const body = request.body;
  const name = targetCollection(request);
  if (truthy(body.tailable)) {
    throw new ServerError(ErrorCode.NotImplemented, "NotImplemented", "tailable cursors are not supported");
  }
  const strings = collatorFor(body.collation, "find.collation");
  const variables = letVariables(request);
  const view = readViewFor(request, server);
  const collection = server.catalog.collection(request.db, name);
  const filter = optionalDocument(body, "filter") ?? {};
  const sortSpec = optionalDocument(body, "sort");
  const sort = sortSpec && Object.keys(sortSpec).length > 0 ? sortSpec : undefined;
  const skip = optionalCount(body, "skip") ?? 0;
  let limit = optionalCount(body, "limit") ?? 0;
  let singleBatch = truthy(body.singleBatch);
  if (limit < 0) [limit, singleBatch] = [-limit, true];
  const wanted = limit > 0 ? skip + limit : undefined;
  const query = collection
    ? await view.queryYielding(
        collection,
        { filter, sort, limit: wanted, strings, variables },
        request.killed,
      )
    : undefined;
  let docs = (query?.found ?? []).map((v) => v.doc);
  if (sort && !query?.sorted) docs = sortDocuments(docs, sort, strings);
  docs = docs.slice(skip, wanted);
  const projection = optionalDocument(body, "projection");
  const projects = projection && Object.keys(projection).length > 0;
  if (projects) docs = docs.map((d) => projectDocument(d, projection, strings, variables));
  return {
    docs,
    query,
    filter,
    sort,
    skip,
    limit,
    singleBatch,
    projection: projects ? projection : undefined,
  };
}

export const find: CommandHandler = async (request, server) => {
  const { docs, singleBatch } = await executeFind(request, server);
  const body = request.body;
  const name = targetCollection(request);
  const cursor = new ArrayCursor(`${request.db}.${name}`, docs);
  const batchSize = optionalCount(body, "batchSize");
  const batch =
    batchSize === 0
      ? { documents: [], exhausted: docs.length === 0 }
      : cursor.takeBatch(batchSize ?? DEFAULT_FIRST_BATCH_SIZE);
  if (singleBatch) batch.exhausted = true;
  return firstBatchReply(server, cursor, batch, truthy(body.noCursorTimeout));
};

export const count: CommandHandler = async (request, server) => {
  const name = targetCollection(request);
  const collection = server.catalog.collection(request.db, name);
  const query = optionalDocument(request.body, "query") ?? {};
  const strings = collatorFor(request.body.collation, "count.collation");
  let n =
    Object.keys(query).length === 0 && !request.transaction
      ? (collection?.count ?? 0)
      : (await readMatching(request, server, collection, query, strings)).length;
  const skip = optionalCount(request.body, "skip") ?? 0;
  const limit = Math.abs(optionalCount(request.body, "limit") ?? 0);
  n = Math.max(0, n - skip);
  if (limit > 0) n = Math.min(n, limit);
  return { n, ok: 1 };
};

export const distinct: CommandHandler = async (request, server) => {
  const name = targetCollection(request);
  const key = request.body.key;
  if (typeof key !== "string")
    throw new ServerError(ErrorCode.TypeMismatch, "TypeMismatch", "'key' must be a string");
  const strings = collatorFor(request.body.collation, "distinct.collation");
  const collection = server.catalog.collection(request.db, name);
  const filter = optionalDocument(request.body, "query") ?? {};
  const matches = await readMatching(request, server, collection, filter, strings);
  // Values equal under the collation are one value, reported as the first one met (mongod's).
  const values: unknown[] = [];
  for (const doc of matches) {
    for (const value of valuesAtPath(doc, key.split("."))) {
      if (!values.some((seen) => valuesEqual(seen, value, strings))) values.push(value);
    }
  }
  values.sort((a, b) => compareValues(a, b, strings));
  return { values, ok: 1 };
};

/** The documents matching `filter`, read as a command's own read (queryYielding). */
async function readMatching(
  request: CommandRequest,
  server: ServerState,
  collection: StoredCollection | undefined,
  filter: Document,
  strings: StringComparator | undefined,
): Promise<Document[]> {
  if (!collection) return [];
  const view = readViewFor(request, server);
  const query = await view.queryYielding(collection, { filter, strings }, request.killed);
  return query.found.map((v) => v.doc);
}

/** Values at a dotted path, arrays unwound one level as distinct does. */
function valuesAtPath(value: unknown, parts: string[]): unknown[] {
  if (parts.length === 0) return Array.isArray(value) ? value : value === undefined ? [] : [value];
  if (Array.isArray(value)) return value.flatMap((element) => valuesAtPath(element, parts));
  if (value === null || typeof value !== "object") return [];
  return valuesAtPath((value as Document)[parts[0]!], parts.slice(1));
}
