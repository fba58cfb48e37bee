// "Never two writers", observed from outside: the soak watches the database's change stream
// for the lease document's writes and for every transactional write (only the sidecars'
// corrections and takeovers run in transactions). The lease lists its holder's session ids, so each
// correction's lsid names the replica that committed it. In commit order, the lease's term
// must only grow, and every correction must come from the replica holding the lease when it
// committed: a correction committed under a term after a newer term began is a violation.
import type { Binary, ChangeStream, Db, Document, MongoClient, Timestamp } from "mongodb";

const MARKER_COLLECTION = "soak_marker";

interface LeaseEvent {
  kind: "lease";
  term?: number;
  holder?: string;
}

interface CorrectionEvent {
  kind: "correction";
  session: string;
  collection: string;
}

const LEASE_ID = "lease";
const sessionKey = (id: Binary): string => Buffer.from(id.buffer).toString("hex");
/** Which transaction an event belongs to; undefined outside one. */
const transactionKey = (event: Document): string | undefined =>
  event.txnNumber === undefined
    ? undefined
    : `${sessionKey(event.lsid.id as Binary)}:${String(event.txnNumber)}`;

export class LeaseAudit {
  private readonly events: (LeaseEvent | CorrectionEvent)[] = [];
  /** Session id -> the holder that listed it in the lease. */
  private readonly sessionHolders = new Map<string, string>();
  private readonly stream: ChangeStream;
  private readonly reading: Promise<void>;
  private markerSeen = false;

  /** Starts watching from now: from the cluster time of a write made before it returns. */
  static async start(client: MongoClient, db: Db, stateCollection: string): Promise<LeaseAudit> {
    const session = client.startSession();
    try {
      await db.collection<{ _id: string }>(MARKER_COLLECTION).insertOne({ _id: "start" }, { session });
      return new LeaseAudit(db, stateCollection, session.operationTime!);
    } finally {
      await session.endSession();
    }
  }

  private constructor(
    private readonly db: Db,
    stateCollection: string,
    startAtOperationTime: Timestamp,
  ) {
    this.stream = db.watch(
      [
        {
          $match: {
            $or: [
              { "ns.coll": stateCollection, "documentKey._id": LEASE_ID },
              { txnNumber: { $exists: true } },
              { "ns.coll": MARKER_COLLECTION },
            ],
          },
        },
      ],
      { fullDocument: "updateLookup", startAtOperationTime },
    );
    this.reading = this.read(stateCollection);
  }

  private async read(stateCollection: string): Promise<void> {
    let takeover: string | undefined;
    for await (const event of this.stream as AsyncIterable<Document>) {
      const collection = (event.ns as { coll?: string }).coll;
      if (collection === MARKER_COLLECTION) {
        this.markerSeen = event.documentKey._id === "end";
        if (this.markerSeen) return;
        continue;
      }
      const transaction = transactionKey(event);
      if (collection === stateCollection && event.documentKey._id === LEASE_ID) {
        // A takeover is one transaction: its other writes (the fence documents) belong to it.
        takeover = transaction;
        this.recordLease(event);
      } else if (transaction !== undefined && transaction !== takeover) {
        this.events.push({
          kind: "correction",
          session: sessionKey(event.lsid.id as Binary),
          collection: collection!,
        });
      }
    }
  }

  private recordLease(event: Document): void {
    const changed: Document =
      event.operationType === "update" ? event.updateDescription.updatedFields : event.fullDocument;
    this.events.push({
      kind: "lease",
      term: changed?.term as number | undefined,
      holder: changed?.holder as string | undefined,
    });
    // The looked-up document may be a later version; its holder and sessions still belong together.
    const current = event.fullDocument as Document | undefined;
    for (const id of (current?.sessions as Binary[] | undefined) ?? [])
      this.sessionHolders.set(sessionKey(id), current!.holder as string);
  }

  /** Reads the stream up to now (a marker written after everything else), then closes it. */
  async finish(): Promise<void> {
    await this.db.collection<{ _id: string }>(MARKER_COLLECTION).insertOne({ _id: "end" });
    await this.reading;
    await this.stream.close();
  }

  /** How many terms began: the first holder's, then one per takeover. */
  get terms(): number {
    return this.events.filter((event) => event.kind === "lease" && event.term !== undefined).length;
  }

  violations(): string[] {
    const problems: string[] = [];
    if (!this.markerSeen) problems.push("the audit's change stream ended before reading everything");
    let term = 0;
    let holder: string | undefined;
    for (const event of this.events) {
      if (event.kind === "lease") {
        if (event.term !== undefined && event.term <= term)
          problems.push(`lease term went from ${term} to ${event.term}`);
        term = event.term ?? term;
        holder = event.holder ?? holder;
        continue;
      }
      const writer = this.sessionHolders.get(event.session);
      if (writer !== holder)
        problems.push(
          `a transaction on ${event.collection} committed by ${writer ?? `unknown session ${event.session}`} while ${holder} held term ${term}`,
        );
    }
    return problems;
  }
}
