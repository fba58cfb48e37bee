// Every command the server answers, by name (bulkWrite only as 8.0: server-version.ts). mongod's names are case-sensitive, except the
// legacy isMaster, which it also accepts as "ismaster".
import type { CommandHandler } from "./command-context.js";
import { bulkWrite } from "./bulk-write.js";
import { createUser, saslContinue, saslStart } from "./authentication.js";
import { getClusterParameter, setClusterParameter } from "./cluster-parameters.js";
import { collMod, create, drop, listCollections, renameCollection } from "./collections.js";
import { configureFailPoint, waitForFailPoint } from "./configure-fail-point.js";
import { dropDatabase, listDatabases } from "./databases.js";
import { deleteCommand } from "./delete.js";
import { explain } from "./explain.js";
import { count, distinct, find } from "./find.js";
import { findAndModify } from "./find-and-modify.js";
import { getMore, killCursors } from "./get-more.js";
import { hello } from "./hello.js";
import { createIndexes, dropIndexes, listIndexes } from "./indexes.js";
import { insert } from "./insert.js";
import {
  acknowledge,
  buildInfo,
  getParameter,
  hostInfo,
  ping,
  serverStatus,
  setParameter,
  setFeatureCompatibilityVersion,
  whatsmyuri,
} from "./server-info.js";
import {
  abortTransaction,
  commitTransaction,
  endSessions,
  killAllSessions,
  killSessions,
} from "./transactions.js";
import { update } from "./update.js";
import { aggregateOnViews, countStages, distinctStages, findStages, readingViews } from "./views.js";

export const COMMANDS: ReadonlyMap<string, CommandHandler> = new Map<string, CommandHandler>([
  ["hello", hello],
  ["isMaster", hello],
  ["ismaster", hello],
  ["ping", ping],
  ["buildInfo", buildInfo],
  ["buildinfo", buildInfo],
  ["getParameter", getParameter],
  ["setParameter", setParameter],
  ["setFeatureCompatibilityVersion", setFeatureCompatibilityVersion],
  ["setClusterParameter", setClusterParameter],
  ["getClusterParameter", getClusterParameter],
  ["createUser", createUser],
  ["saslStart", saslStart],
  ["saslContinue", saslContinue],
  ["serverStatus", serverStatus],
  ["hostInfo", hostInfo],
  ["whatsmyuri", whatsmyuri],
  ["killAllSessions", killAllSessions],
  ["killSessions", killSessions],
  ["refreshSessions", acknowledge],
  ["listDatabases", listDatabases],
  ["dropDatabase", dropDatabase],
  ["listCollections", listCollections],
  ["create", create],
  ["collMod", collMod],
  ["drop", drop],
  ["renameCollection", renameCollection],
  ["createIndexes", createIndexes],
  ["listIndexes", listIndexes],
  ["dropIndexes", dropIndexes],
  ["insert", insert],
  ["update", update],
  ["delete", deleteCommand],
  ["bulkWrite", bulkWrite],
  ["find", readingViews(find, findStages)],
  ["getMore", getMore],
  ["killCursors", killCursors],
  ["count", readingViews(count, countStages)],
  ["distinct", readingViews(distinct, distinctStages)],
  ["findAndModify", findAndModify],
  ["findandmodify", findAndModify],
  ["aggregate", aggregateOnViews],
  ["explain", explain],
  ["commitTransaction", commitTransaction],
  ["abortTransaction", abortTransaction],
  ["endSessions", endSessions],
  ["configureFailPoint", configureFailPoint],
  ["waitForFailPoint", waitForFailPoint],
]);
