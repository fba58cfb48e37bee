// The privilege actions a command needs, per collection, as MongoDB's authorization checks
// them (docs: "Privilege Actions"; an upsert needs insert as well as update, findAndModify
// needs find). Commands on the client's own sessions, cursors and transactions need none.
// A command this table does not know is an error, so that a new kind of command the
// sidecar sends makes the role test fail rather than go unchecked.
import type { Document } from "mongodb";

/** collection ("" for the whole database) -> actions. */
export type ActionsByCollection = Map<string, Set<string>>;

const NO_PRIVILEGE = new Set([
  "hello",
  "isMaster",
  "ismaster",
  "ping",
  "buildInfo",
  "getMore",
  "killCursors",
  "endSessions",
  "killSessions",
  "commitTransaction",
  "abortTransaction",
]);

function grant(into: ActionsByCollection, collection: string, ...actions: string[]): void {
  const set = into.get(collection) ?? new Set<string>();
  for (const action of actions) set.add(action);
  into.set(collection, set);
}

function isChangeStream(pipeline: unknown): boolean {
  return Array.isArray(pipeline) && pipeline.some((stage) => "$changeStream" in (stage as Document));
}

/** The actions `command` (as sent to database `databaseName`) needs, added to `into`. */
export function addActionsOf(
  into: ActionsByCollection,
  commandName: string,
  command: Document,
  databaseName: string,
): void {
  const target = command[commandName] as unknown;
  const collection = typeof target === "string" ? target : "";
  switch (commandName) {
    case "insert":
      return grant(into, collection, "insert");
    case "update": {
      const upsert = (command.updates as Document[]).some((statement) => statement.upsert === true);
      return grant(into, collection, "update", ...(upsert ? ["insert"] : []));
    }
    case "delete":
      return grant(into, collection, "remove");
    case "findAndModify":
      if (command.remove === true) return grant(into, collection, "find", "remove");
      return grant(into, collection, "find", "update", ...(command.upsert === true ? ["insert"] : []));
    case "bulkWrite":
      return addBulkWriteActions(into, command, databaseName);
    case "find":
    case "count":
    case "distinct":
    case "listIndexes":
      return grant(into, collection, "find");
    case "aggregate":
      return grant(into, collection, "find", ...(isChangeStream(command.pipeline) ? ["changeStream"] : []));
    case "listCollections":
      // Without the listCollections action, only names of authorised collections may be listed.
      if (command.authorizedCollections === true && command.nameOnly === true) return;
      return grant(into, "", "listCollections");
    case "create":
      return grant(into, collection, "createCollection");
    case "createIndexes":
      return grant(into, collection, "createIndex");
    case "collMod":
      return grant(into, collection, "collMod");
    default:
      if (NO_PRIVILEGE.has(commandName)) return;
      throw new Error(`no privilege mapping for the ${commandName} command`);
  }
}

/** bulkWrite runs on admin and names its namespaces in nsInfo; each operation needs its action there. */
function addBulkWriteActions(into: ActionsByCollection, command: Document, databaseName: string): void {
  const namespaces = (command.nsInfo as { ns: string }[]).map(({ ns }) => {
    if (!ns.startsWith(`${databaseName}.`)) throw new Error(`bulkWrite outside ${databaseName}: ${ns}`);
    return ns.slice(databaseName.length + 1);
  });
  for (const operation of command.ops as Document[]) {
    if ("insert" in operation) grant(into, namespaces[operation.insert as number]!, "insert");
    else if ("update" in operation)
      grant(into, namespaces[operation.update as number]!, "update", ...(operation.upsert ? ["insert"] : []));
    else if ("delete" in operation) grant(into, namespaces[operation.delete as number]!, "remove");
    else throw new Error(`unknown bulkWrite operation ${JSON.stringify(Object.keys(operation))}`);
  }
}
