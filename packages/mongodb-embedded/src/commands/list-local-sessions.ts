// The $listLocalSessions stage: the sessions this server's registry knows, as mongod's
// logical session cache reports them. There is no authentication, so every session belongs
// to the unauthenticated user, whose digest is the SHA-256 of the empty string.
import { createHash } from "node:crypto";
import { Binary, type Document } from "bson";
import { ErrorCode, ServerError } from "../errors.js";
import { bsonTypeOf } from "../query/index.js";
import type { ServerState } from "../server-state.js";
import type { CommandRequest } from "./command-context.js";

const STAGE = "$listLocalSessions";

/** mongod's user digest: SHA-256 of "user@db", or of "" for the unauthenticated user. */
function userDigest(user: string, db: string): Buffer {
  const name = user === "" && db === "" ? "" : `${user}@${db}`;
  return createHash("sha256").update(name).digest();
}

const NO_AUTH_DIGEST = userDigest("", "");

/** mongod checks the namespace when it parses the stage, before the stage's position. */
export function assertCollectionless(request: CommandRequest): void {
  if (typeof request.body.aggregate !== "string") return;
  throw new ServerError(
    ErrorCode.InvalidNamespace,
    "InvalidNamespace",
    `${STAGE} must be run against the database with {aggregate: 1}, not a collection`,
  );
}

/** The stage's output documents: `{ _id: { id, uid }, lastUse }` per session asked for. */
export function localSessionDocuments(server: ServerState, spec: unknown): Document[] {
  if (!requestedDigests(spec).some((digest) => digest.equals(NO_AUTH_DIGEST))) return [];
  return server.sessions.list().map(({ lsid, lastUse }) => ({
    _id: { id: lsid.id, uid: new Binary(NO_AUTH_DIGEST, Binary.SUBTYPE_DEFAULT) },
    lastUse,
  }));
}

/** The user digests the spec selects; with neither option, the caller's own sessions. */
function requestedDigests(spec: unknown): Buffer[] {
  if (spec === null || typeof spec !== "object" || Array.isArray(spec) || bsonTypeOf(spec) !== "object") {
    throw new ServerError(
      ErrorCode.TypeMismatch,
      "TypeMismatch",
      `${STAGE} options must be specified in an object, but found: ${bsonTypeOf(spec)}`,
    );
  }
  const { allUsers, users, ...unknown } = spec as Document;
  const [extra] = Object.keys(unknown);
  if (extra !== undefined)
    throw new ServerError(40415, "Location40415", `BSON field '${STAGE}.${extra}' is an unknown field.`);
  if (allUsers !== undefined && typeof allUsers !== "boolean") throw wrongType("allUsers", allUsers, "bool");
  const listed = users === undefined ? [] : parseUsers(users);
  if (allUsers === true && listed.length > 0) {
    throw new ServerError(
      12,
      "UnsupportedFormat",
      `${STAGE} may not specify {allUsers:true} and {users:[...]} at the same time`,
    );
  }
  // Without authentication every session has the no-auth digest: all users and the caller's
  // own sessions are the same set.
  if (allUsers === true || listed.length === 0) return [NO_AUTH_DIGEST];
  return listed;
}

function parseUsers(users: unknown): Buffer[] {
  if (!Array.isArray(users)) throw wrongType("users", users, "array");
  return users.map((entry: unknown) => {
    const { user, db } = (entry ?? {}) as Document;
    return userDigest(requiredString("users.user", user), requiredString("users.db", db));
  });
}

function requiredString(field: string, value: unknown): string {
  if (value === undefined)
    throw new ServerError(
      40414,
      "Location40414",
      `BSON field '${STAGE}.${field}' is missing but a required field`,
    );
  if (typeof value !== "string") throw wrongType(field, value, "string");
  return value;
}

function wrongType(field: string, value: unknown, expected: string): ServerError {
  return new ServerError(
    ErrorCode.TypeMismatch,
    "TypeMismatch",
    `BSON field '${STAGE}.${field}' is the wrong type '${bsonTypeOf(value)}', expected type '${expected}'`,
  );
}
