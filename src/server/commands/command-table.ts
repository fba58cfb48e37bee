// Every command the server answers, by name. mongod's names are case-sensitive, except the
// legacy isMaster, which it also accepts as "ismaster".
import type { CommandHandler } from "./command-context.js";
import { hello } from "./hello.js";
import {
  acknowledge,
  buildInfo,
  getParameter,
  hostInfo,
  ping,
  serverStatus,
  whatsmyuri,
} from "./server-info.js";

export const COMMANDS: ReadonlyMap<string, CommandHandler> = new Map<string, CommandHandler>([
  ["hello", hello],
  ["isMaster", hello],
  ["ismaster", hello],
  ["ping", ping],
  ["buildInfo", buildInfo],
  ["buildinfo", buildInfo],
  ["getParameter", getParameter],
  ["serverStatus", serverStatus],
  ["hostInfo", hostInfo],
  ["whatsmyuri", whatsmyuri],
  ["killAllSessions", acknowledge],
  ["refreshSessions", acknowledge],
]);
