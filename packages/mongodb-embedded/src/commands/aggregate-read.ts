// How an aggregate reads collections: its leading $match, $sort and $limit, which an index can
// answer (as mongod pushes them down to its query layer), and the reads of its $lookup joins,
// through the same path and the same view (a transaction's snapshot with its own writes).
import { readViewFor } from "./read-view.js";
import type { Document } from "bson";
import {
  collatorFor,
  sortDocuments,
  splitLeadingRead,
  type ForeignRead,
  type ForeignReadResult,
  type PipelineContext,
  type StringComparator,
} from "../query/index.js";
import type { ServerState } from "../server-state.js";
import type { QueryResult, ReadView } from "../storage/read-view.js";
import type { StoredCollection } from "../storage/stored-collection.js";
import type { CommandRequest } from "./command-context.js";
import { documentArray, letVariables } from "./command-args.js";
import { indexNameOf } from "./query-stages.js";

export interface AggregateRead {
  read: { filter: Document; sort?: Document; skip: number; limit: number };
  query?: QueryResult;
  /** The documents read, sorted and limited. */
  docs: Document[];
  rest: Document[];
}

export async function executeAggregateRead(
  request: CommandRequest,
  server: ServerState,
  stages: Document[] = documentArray(request.body, "pipeline"),
): Promise<AggregateRead> {
  const { rest, ...read } = splitLeadingRead(stages);
  const name = request.body.aggregate;
  const collection = typeof name === "string" ? server.catalog.collection(request.db, name) : undefined;
  const options = readOptions(request);
  const view = readViewFor(request, server);
  const query = collection && (await view.queryYielding(collection, queryOf(read, options), request.killed));
  const docs = query ? arrangedDocuments(query, read, options) : [];
  return { read: Object.assign({}, read, { skip: 0 }), query, docs, rest };
}

interface ReadOptions {
  strings?: StringComparator;
  variables?: Document;
}

function readOptions(request: CommandRequest): ReadOptions {
  return {
    strings: collatorFor(request.body.collation, "aggregate.collation"),
    variables: letVariables(request),
  };
}

/**
 * The read and its options as one query. Object.assign rather than two spreads: on Node 20 an
 * object a spread makes gets hidden classes of its own for whatever is added to it, a second
 * spread included, and a $lookup reads once per document it joins.
 */
function queryOf(read: ForeignRead, options: ReadOptions): ForeignRead & ReadOptions {
  return Object.assign({}, read, options);
}

/** A find-like read: through the best index, then sorted in memory if no index gave the order. */
function readCollection(
  view: ReadView,
  collection: StoredCollection | undefined,
  read: ForeignRead,
  options: ReadOptions,
): { docs: Document[]; query?: QueryResult } {
  if (!collection) return { docs: [] };
  const query = view.query(collection, queryOf(read, options));
  return { docs: arrangedDocuments(query, read, options), query };
}

/** The documents a read found, sorted (unless an index gave the order) and limited. */
function arrangedDocuments(query: QueryResult, read: ForeignRead, options: ReadOptions): Document[] {
  let docs = query.found.map((v) => v.doc);
  if (read.sort && !query.sorted) docs = sortDocuments(docs, read.sort, options.strings);
  if (read.limit > 0) docs = docs.slice(0, read.limit);
  return docs;
}

/** The context an aggregate's stages run in: other collections of the database, read through
 * the operation's view (so a transaction's $lookup sees its snapshot and its own writes). */
export function aggregateContext(request: CommandRequest, server: ServerState): PipelineContext {
  const view = readViewFor(request, server);
  const options = readOptions(request);
  const collectionNamed = (name: string) => server.catalog.collection(request.db, name);
  return {
    collection: (name) => view.documents(collectionNamed(name)),
    readCollection: (name, read): ForeignReadResult => {
      const { docs, query } = readCollection(view, collectionNamed(name), read, options);
      const indexName = query && indexNameOf(query.path);
      return {
        docs,
        keysExamined: query?.keysExamined ?? 0,
        docsExamined: query?.docsExamined ?? 0,
        indexName,
        collectionScan: query !== undefined && indexName === undefined,
      };
    },
    ...options,
  };
}
