// Special test operations (object: testRunner): fail points, assertions on sessions and on the
// deployment's catalog, and entities created mid-test.
import { MongoServerError, type ClientSession, type Document } from "mongodb";
import { createEntities } from "../create-entities.js";
import { findDifference } from "../matcher.js";
import { AssertionFailure, UnsupportedFeature } from "../outcomes.js";
import type { EntityDescription } from "../test-file-types.js";
import type { OperationContext } from "./context.js";

type TestRunnerOperation = (args: Document, context: OperationContext) => Promise<void>;

// The driver keeps a session's transaction state internally; the spec names these states.
const transactionStates: Record<string, string> = {
  NO_TRANSACTION: "none",
  STARTING_TRANSACTION: "starting",
  TRANSACTION_IN_PROGRESS: "in_progress",
  TRANSACTION_COMMITTED: "committed",
  TRANSACTION_COMMITTED_EMPTY: "committed",
  TRANSACTION_ABORTED: "aborted",
};

interface SessionInternals {
  transaction: { state: string };
  serverSession?: { isDirty?: boolean };
}

function session(args: Document, context: OperationContext): ClientSession {
  return context.entities.get(String(args.session), "session").session;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new AssertionFailure(message);
}

async function collectionNames(args: Document, context: OperationContext): Promise<string[]> {
  const database = context.internalClient.db(String(args.databaseName));
  const collections = await database.listCollections({}, { nameOnly: true }).toArray();
  return collections.map((collection) => collection.name);
}

const NAMESPACE_NOT_FOUND = 26;

async function indexNames(args: Document, context: OperationContext): Promise<string[]> {
  const collection = context.internalClient
    .db(String(args.databaseName))
    .collection(String(args.collectionName));
  try {
    const indexes = await collection.listIndexes().toArray();
    return indexes.map((index) => String(index.name));
  } catch (error) {
    // A missing collection has no indexes; mongod answers listIndexes on it NamespaceNotFound.
    if (error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND) return [];
    throw error;
  }
}

function lastTwoLsids(args: Document, context: OperationContext): [unknown, unknown] {
  const commands = context.entities.get(String(args.client), "client").events.startedCommands();
  check(commands.length >= 2, `${String(args.client)} observed fewer than two commandStartedEvents`);
  const [first, second] = commands.slice(-2).map((command) => command.lsid as unknown);
  check(first !== undefined && second !== undefined, "one of the last two commands has no lsid");
  return [first, second];
}

const operations: Record<string, TestRunnerOperation> = {
  failPoint: async (args, context) => {
    const { client } = context.entities.get(String(args.client), "client");
    const failPoint = args.failPoint as Document;
    context.failPoints.push(String(failPoint.configureFailPoint));
    await client.db("admin").command(failPoint);
  },
  targetedFailPoint: async (args, context) => {
    // Pinning happens only to a mongos; on our replica set a session is never pinned.
    check(session(args, context).isPinned, `session ${String(args.session)} is not pinned to a mongos`);
    return Promise.reject(new UnsupportedFeature("targetedFailPoint on a pinned session"));
  },
  assertSessionTransactionState: async (args, context) => {
    const state = (session(args, context) as unknown as SessionInternals).transaction.state;
    const named = transactionStates[state] ?? state;
    check(
      named === args.state,
      `session ${String(args.session)} transaction state is ${named}, expected ${String(args.state)}`,
    );
    return Promise.resolve();
  },
  assertSessionPinned: async (args, context) =>
    check(session(args, context).isPinned, `session ${String(args.session)} is not pinned`),
  assertSessionUnpinned: async (args, context) =>
    check(!session(args, context).isPinned, `session ${String(args.session)} is pinned`),
  assertSessionDirty: async (args, context) => {
    const dirty = (session(args, context) as unknown as SessionInternals).serverSession?.isDirty === true;
    check(dirty, `session ${String(args.session)} is not dirty`);
  },
  assertSessionNotDirty: async (args, context) => {
    const dirty = (session(args, context) as unknown as SessionInternals).serverSession?.isDirty === true;
    check(!dirty, `session ${String(args.session)} is dirty`);
  },
  assertSameLsidOnLastTwoCommands: async (args, context) => {
    const [first, second] = lastTwoLsids(args, context);
    check(
      findDifference(first, second, { root: false }) === undefined,
      "the last two commands have different lsids",
    );
  },
  assertDifferentLsidOnLastTwoCommands: async (args, context) => {
    const [first, second] = lastTwoLsids(args, context);
    check(
      findDifference(first, second, { root: false }) !== undefined,
      "the last two commands have the same lsid",
    );
  },
  assertCollectionExists: async (args, context) =>
    check(
      (await collectionNames(args, context)).includes(String(args.collectionName)),
      `collection ${String(args.databaseName)}.${String(args.collectionName)} does not exist`,
    ),
  assertCollectionNotExists: async (args, context) =>
    check(
      !(await collectionNames(args, context)).includes(String(args.collectionName)),
      `collection ${String(args.databaseName)}.${String(args.collectionName)} exists`,
    ),
  assertIndexExists: async (args, context) =>
    check(
      (await indexNames(args, context)).includes(String(args.indexName)),
      `index ${String(args.indexName)} does not exist`,
    ),
  assertIndexNotExists: async (args, context) =>
    check(
      !(await indexNames(args, context)).includes(String(args.indexName)),
      `index ${String(args.indexName)} exists`,
    ),
  createEntities: async (args, context) =>
    createEntities(args.entities as EntityDescription[], context.entities, context.uri),
  wait: async (args) => new Promise((resolve) => setTimeout(resolve, Number(args.ms))),
};

export async function runTestRunnerOperation(
  name: string,
  args: Document,
  context: OperationContext,
): Promise<void> {
  const operation = operations[name];
  if (!operation) throw new UnsupportedFeature(`testRunner operation ${name}`);
  await operation(args, context);
}
