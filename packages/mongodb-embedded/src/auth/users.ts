// The users of a server started with authentication on (createUser), and who a logical session
// belongs to. mongod keys a session on its id and its user's digest, the SHA-256 of
// "user@db" (src/mongo/db/session/logical_session_id_helpers.cpp), so one user's killSessions
// never names another user's session, whatever id it gives.
import { createHash } from "node:crypto";
import { Binary } from "bson";
import { ServerError } from "../errors.js";
import { scramCredentials, type ScramCredentials } from "./scram-sha-256.js";

export interface UserName {
  user: string;
  db: string;
}

export class Users {
  private readonly credentials = new Map<string, ScramCredentials>();

  get isEmpty(): boolean {
    return this.credentials.size === 0;
  }

  create({ user, db }: UserName, password: string): void {
    const key = `${user}@${db}`;
    // mongod's code and message for a user that exists (Location51003).
    if (this.credentials.has(key))
      throw new ServerError(51003, "Location51003", `User "${key}" already exists`);
    this.credentials.set(key, scramCredentials(password));
  }

  credentialsOf({ user, db }: UserName): ScramCredentials | undefined {
    return this.credentials.get(`${user}@${db}`);
  }
}

/** The digest mongod puts in a session's id as `uid`. */
export function userDigest({ user, db }: UserName): Binary {
  return new Binary(createHash("sha256").update(`${user}@${db}`).digest(), Binary.SUBTYPE_DEFAULT);
}
