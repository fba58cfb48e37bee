// setClusterParameter / getClusterParameter of changeStreamOptions, the one cluster parameter
// served: how long change-stream pre- and post-images are kept (`expireAfterSeconds`, "off" by
// default), validated and answered as mongod does (jstests/noPassthrough/change_stream_options.js).
import { Long, type Document } from "bson";
import { ErrorCode, ServerError } from "../errors.js";
import type { CommandHandler } from "./command-context.js";
import type { ServerState } from "../server-state.js";

const CHANGE_STREAM_OPTIONS = "changeStreamOptions";

function requireAdmin(db: string, command: string): void {
  if (db !== "admin")
    throw new ServerError(13, "Unauthorized", `${command} may only be run against the admin database.`);
}

const badValue = (message: string) => new ServerError(ErrorCode.BadValue, "BadValue", message);

/** `expireAfterSeconds` of preAndPostImages: "off" (undefined) or a positive whole number. */
function parseExpireAfterSeconds(options: unknown): number | undefined {
  const images = (options as Document | null)?.preAndPostImages as Document | undefined;
  if (typeof images !== "object" || images === null || !("expireAfterSeconds" in images))
    throw badValue("changeStreamOptions needs preAndPostImages.expireAfterSeconds");
  const value: unknown = images.expireAfterSeconds;
  if (value === "off") return undefined;
  const seconds = typeof value === "object" && value !== null ? Number(value.valueOf()) : Number(value);
  if (typeof value === "string" || !Number.isInteger(seconds) || seconds <= 0)
    throw badValue(
      `Invalid value for 'expireAfterSeconds': ${String(value)}; expected "off" or a positive number`,
    );
  return seconds;
}

export const setClusterParameter: CommandHandler = (request, server) => {
  requireAdmin(request.db, "setClusterParameter");
  const parameters = request.body.setClusterParameter as Document | null;
  const names = typeof parameters === "object" && parameters !== null ? Object.keys(parameters) : [];
  if (names.length !== 1) throw badValue("setClusterParameter takes exactly one cluster parameter");
  if (names[0] !== CHANGE_STREAM_OPTIONS)
    throw new ServerError(ErrorCode.NoSuchKey, "NoSuchKey", `Unknown Cluster Parameter ${names[0]}`);
  server.changeLog.imagesExpireAfterSeconds = parseExpireAfterSeconds(parameters![CHANGE_STREAM_OPTIONS]);
  return { ok: 1 };
};

export const getClusterParameter: CommandHandler = (request, server) => {
  requireAdmin(request.db, "getClusterParameter");
  const wanted: unknown = request.body.getClusterParameter;
  const names = Array.isArray(wanted) ? wanted : [wanted];
  for (const name of names) {
    if (name !== "*" && name !== CHANGE_STREAM_OPTIONS)
      throw new ServerError(ErrorCode.NoSuchKey, "NoSuchKey", `Unknown Cluster Parameter ${String(name)}`);
  }
  return { clusterParameters: [changeStreamOptions(server)], ok: 1 };
};

function changeStreamOptions(server: ServerState): Document {
  const seconds = server.changeLog.imagesExpireAfterSeconds;
  return {
    _id: CHANGE_STREAM_OPTIONS,
    preAndPostImages: { expireAfterSeconds: seconds === undefined ? "off" : Long.fromNumber(seconds) },
  };
}
