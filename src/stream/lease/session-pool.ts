// The leader's own sessions: a fixed set of explicit driver sessions that every correction
// runs its transaction on. Their ids are written into the lease document, so that whoever
// takes the lease over can kill them (killSessions) and abort a transaction this replica
// left open, being killed or paused, before it writes anything itself.
import type { Binary, ClientSession, MongoClient } from "mongodb";
import { Slots } from "../correction/slots.js";

/** A session's lsid `id` as text: its fence document's name, a key to tell sessions apart by. */
export function sessionIdHex(id: Binary): string {
  return Buffer.from(id.buffer).toString("hex");
}

export class SessionPool {
  private readonly sessions: ClientSession[];
  private readonly idle: ClientSession[];
  /** One slot per session: whoever holds a slot finds an idle session. */
  private readonly slots: Slots;

  constructor(client: MongoClient, size: number) {
    this.sessions = Array.from({ length: size }, () => client.startSession());
    this.idle = [...this.sessions];
    this.slots = new Slots(size);
  }

  /** The sessions' lsid `id`s (UUIDs), as killSessions takes them. */
  get ids(): Binary[] {
    return this.sessions.flatMap((session) => (session.id ? [session.id.id] : []));
  }

  /** Runs `work` on a session of the pool, waiting for one to be free. */
  withSession<T>(work: (session: ClientSession) => Promise<T>): Promise<T> {
    return this.slots.run(async () => {
      const session = this.idle.pop()!;
      try {
        return await work(session);
      } finally {
        this.idle.push(session);
      }
    });
  }

  /** Ends every session (the server then forgets them); call once no work runs. */
  async close(): Promise<void> {
    await Promise.all(this.sessions.map((session) => session.endSession()));
  }
}
