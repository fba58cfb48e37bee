// Recognises the sidecar's own corrections in the change stream. mongod puts the `lsid` and
// `txnNumber` of a multi-document transaction on each of its change events; every correction
// that writes is such a transaction, run on a session of the sidecar's own client. A document
// a correction just wrote is in shape (the plan was made, guarded and committed in that one
// transaction), so its echo needs no correction of its own; the application's later writes
// to the same document come with their own events. The stream's $match already leaves out
// the session pool's transactions on the server (watch-pipeline.ts); this catches the rest.
import { Binary, type ClientSession, type Document } from "mongodb";
import type { ProjectedChangeEvent } from "./targets.js";
import { sessionIdHex } from "../lease/session-pool.js";

function sessionKey(lsid: Document | undefined): string | undefined {
  const id: unknown = lsid?.id;
  return id instanceof Binary ? sessionIdHex(id) : undefined;
}

export class OwnWrites {
  // The driver pools server sessions, so this holds about as many ids as corrections ran at once.
  private readonly sessions = new Set<string>();

  remember(session: ClientSession): void {
    const key = sessionKey(session.id);
    if (key !== undefined) this.sessions.add(key);
  }

  isOwn(event: ProjectedChangeEvent): boolean {
    const key = sessionKey(event.lsid);
    return key !== undefined && this.sessions.has(key);
  }
}
